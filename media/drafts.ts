// The composer's text when something typed comes back from the host (issue 14 item 7); DOM-free for the tests.

/** Puts text the host could not send back into the composer, before what is already typed there. */
export function restoredDraft(restored: string, current: string): string {
  if (current.trim() === '') return restored;
  return `${restored}\n\n${current}`;
}
