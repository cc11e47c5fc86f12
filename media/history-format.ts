// When a session was last used, as the history list shows it (issue 14 item 8); DOM-free for the tests.

const time = (date: Date): string => `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;

const sameDay = (left: Date, right: Date): boolean =>
  left.getFullYear() === right.getFullYear() && left.getMonth() === right.getMonth() && left.getDate() === right.getDate();

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "today 14:03", "yesterday 09:15", "3 Nov", or "3 Nov 2025" for another year; local time. */
export function sessionWhen(updatedAt: number, now: Date): string {
  const date = new Date(updatedAt);
  if (Number.isNaN(date.getTime())) return '';
  if (sameDay(date, now)) return `today ${time(date)}`;
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  if (sameDay(date, yesterday)) return `yesterday ${time(date)}`;
  const day = `${date.getDate()} ${MONTHS[date.getMonth()] ?? ''}`;
  return date.getFullYear() === now.getFullYear() ? day : `${day} ${date.getFullYear()}`;
}
