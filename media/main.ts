/**
 * The chat webview's entry (bundled by esbuild.mjs into media/dist/webview.js). Host messages update
 * the view model at once; drawing happens at most once per animation frame, so a burst of
 * streamed tokens costs one re-render of one message. Every control is wired through two
 * delegated listeners (click and input) keyed by `data-action` / `data-input`, which is also why
 * no inline handler is needed under the CSP.
 */
import type { FromWebview, QueuedMessage, ToWebview } from '../src/webview/protocol';
import type { ImagePart } from '../src/core/transcript';
import { Chrome } from './chrome';
import { groupKey, ItemRenderer } from './render';
import { childDetailsKey } from './delegation-view';
import { toolKey } from './transcript';
import { restoredDraft } from './drafts';
import { chosenMode } from './header-format';
import { MessageEdits } from './message-edits';
import { ImageAttachments } from './image-attachments';
import { editedText, lastUserMessage, userOrdinal } from './resend-target';
import { parseBatch } from './approval-batch';
import { MentionPicker } from './mentions';
import { copyWithFeedback, withMessageActions } from './message-actions';
import { copyableText } from './message-copy';
import { WorkPanel } from './work-panel';
import { WorkState } from './work-state';
import { ERROR_ACTIONS } from '../src/webview/editor-words';
import { UiState } from './ui-state';
import { ViewModel } from './view-model';
import { VirtualList } from './virtual-list';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const model = new ViewModel();
const ui = UiState.restore(vscode.getState());
const chrome = new Chrome(model, ui);
const edits = new MessageEdits();
const attachments = new ImageAttachments();
const renderer = new ItemRenderer(model, ui, edits);
const work = new WorkState();
const workPanel = new WorkPanel(work, () => ui.workPanelCollapsed);
chrome.transcript.parentElement?.before(workPanel.root);

let framePending = false;
const requestFrame = (): void => {
  if (framePending) return;
  framePending = true;
  requestAnimationFrame(drawFrame);
};
const list = new VirtualList(
  chrome.transcript,
  (item) => withMessageActions(renderer.render(item), item),
  requestFrame,
  (following) => chrome.setFollowing(following),
);

let drawnGeneration = model.generation;
function drawFrame(): void {
  framePending = false;
  if (drawnGeneration !== model.generation) {
    drawnGeneration = model.generation;
    renderer.reset();
  }
  chrome.update();
  workPanel.update();
  list.update(model.transcript.items, model.generation);
}

const post = (message: FromWebview): void => vscode.postMessage(message);
chrome.history.connect(post);
const persist = (): void => vscode.setState(ui.persisted());
const mentions = new MentionPicker(
  chrome.composer,
  (query) => post({ type: 'mention-search', query }),
  () => {
    ui.draft = chrome.composer.value;
    persist();
  },
);
chrome.composer.parentElement?.before(mentions.root);

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = event.data;
  // Only the extension host posts here; the shape check just keeps a stray message from throwing.
  if (message === null || typeof message !== 'object' || typeof (message as { type?: unknown }).type !== 'string') return;
  const typed = message as ToWebview; // the host builds these from the shared protocol types
  model.receive(typed);
  if (typed.type === 'snapshot') {
    work.reset();
    for (const event of typed.events) work.apply(event);
  } else if (typed.type === 'event') work.apply(typed.event);
  if (typed.type === 'restore-draft') restoreDraft(typed.text, typed.images);
  if (typed.type === 'event' && typed.event.type === 'user-message') attachments.messageShown();
  if (typed.type === 'queue') queueChanged(typed.items);
  if (typed.type === 'compose') addToDraft(typed.text);
  if (typed.type === 'mention-results') mentions.results(typed.query, typed.paths);
  for (const callId of ui.receive(typed)) list.invalidate(model.approvalItemKey(callId));
  if (typed.type === 'snapshot') persist();
  requestFrame();
});

/** Text the host could not send comes back into the composer, with its images, so nothing typed is lost. */
function restoreDraft(text: string, images: readonly ImagePart[] = []): void {
  chrome.composer.value = restoredDraft(text, chrome.composer.value);
  ui.draft = chrome.composer.value;
  persist();
  if (images.length > 0) attachments.restore(images);
}

/** The ids of the queued messages shown, to tell a message just queued from one already there. */
let queuedIds = new Set<string>();

/** A message sent while Zuno works was queued: the images it took leave the composer, as when a message is shown sent. */
function queueChanged(items: readonly QueuedMessage[]): void {
  if (items.some((item) => !queuedIds.has(item.id) && item.images !== undefined)) attachments.messageShown();
  queuedIds = new Set(items.map((item) => item.id));
}

/** Text the editor put in (Add Selection to Chat): after what is typed, not sent, with the caret after it. */
function addToDraft(text: string): void {
  const current = chrome.composer.value;
  chrome.composer.value = current.trim() === '' ? text : `${current.replace(/\s+$/, '')}\n\n${text}`;
  ui.draft = chrome.composer.value;
  persist();
  chrome.composer.focus();
  chrome.composer.setSelectionRange(chrome.composer.value.length, chrome.composer.value.length);
}

function send(): void {
  const text = chrome.composer.value;
  if (text.trim() === '') return;
  const images = attachments.takeForSend();
  // Too many images to go with one message: the composer keeps everything, and its note says what to remove.
  if (images === undefined) return;
  post({ type: 'send', text, ...(images.length > 0 ? { images } : {}) });
  // A new message answers whatever the banner said; it must not stay up for the rest of the chat.
  if (model.error !== undefined) model.dismissError();
  chrome.composer.value = '';
  ui.draft = '';
  persist();
  list.scrollToEnd();
}

function decide(callId: string, approved: boolean, allowLikeThis: boolean, ruleChoice?: number): void {
  const reason = ui.denyReasons.get(callId)?.trim();
  post({
    type: 'approval-decision',
    callId,
    approved,
    ...(approved || reason === undefined || reason === '' ? {} : { reason }),
    ...(allowLikeThis ? { allowLikeThis: true } : {}),
    ...(ruleChoice !== undefined ? { ruleChoice } : {}),
  });
  ui.decided.add(callId);
  list.invalidate(model.approvalItemKey(callId));
  focusAfterDecision(callId);
}

/** "Approve all N": exactly the calls the button was drawn with, each approved as by its own Approve. */
function approveAll(callIds: readonly string[]): void {
  const pending = callIds.filter((callId) => model.approvals.has(callId) && !ui.decided.has(callId));
  const [only] = pending;
  // The others were decided meanwhile: what is left is one plain Approve.
  if (pending.length === 1 && only !== undefined) return decide(only, true, false);
  if (pending.length === 0) return;
  post({ type: 'approve-all', callIds: pending });
  for (const callId of pending) {
    ui.decided.add(callId);
    list.invalidate(model.approvalItemKey(callId));
  }
  chrome.composer.focus();
}

/** After a decision, focus goes to the next approval still waiting, or back to the composer (issue 14 item 8). */
function focusAfterDecision(decided: string): void {
  const next = [...model.approvals.keys()].find((callId) => callId !== decided && !ui.decided.has(callId));
  const button =
    next === undefined ? null : document.querySelector<HTMLElement>(`[data-testid="approve"][data-call-id="${CSS.escape(next)}"]`);
  (button ?? chrome.composer).focus();
}

function answer(callId: string, answered: boolean): void {
  const draft = ui.questionDraft(callId);
  const text = draft.text.trim();
  post(
    answered
      ? { type: 'question-answer', callId, answered, selected: [...draft.selected], ...(text === '' ? {} : { text }) }
      : { type: 'question-answer', callId, answered, selected: [] },
  );
  ui.answered.add(callId);
  list.invalidate(toolKey(callId));
}

/** A restore button: the preview is asked for, and the panel waits for it (issue 13). */
function openRewind(target: HTMLElement, fork: boolean): void {
  const checkpointId = target.dataset.checkpointId;
  if (checkpointId === undefined) return;
  model.openRewind(checkpointId, fork);
  post({ type: 'rewind-preview', checkpointId });
  requestFrame();
}

/** Edit-and-resend (issue 14): with "Also restore files", the restore's preview comes first and the text waits for its confirmation. */
function sendEdit(key: string): void {
  const item = model.transcript.items.find((candidate) => candidate.key === key);
  const ordinal = userOrdinal(model.transcript.items, key);
  const draft = edits.draft(key);
  const text = editedText(draft?.text ?? '');
  if (item?.kind !== 'user' || ordinal === undefined || text === undefined) return;
  edits.stop(key);
  list.invalidate(key);
  if (item.checkpointId !== undefined && draft?.restore === true) {
    edits.awaitRestore(item.checkpointId, text);
    model.openRewind(item.checkpointId, true);
    post({ type: 'rewind-preview', checkpointId: item.checkpointId });
    requestFrame();
    return;
  }
  post({ type: 'resend', ordinal, text });
}

/** Copies a code block's text (not its highlighting markup) and says so on the button for a moment. */
function copyCode(button: HTMLElement): void {
  const code = button.closest('.code-block')?.querySelector('code')?.textContent ?? '';
  const say = (label: string): void => {
    button.textContent = label;
    setTimeout(() => {
      button.textContent = 'Copy';
    }, 1500);
  };
  navigator.clipboard.writeText(code).then(
    () => say('Copied'),
    () => say('Copy failed: select the text and press Ctrl+C'),
  );
}

const ACTIONS: Readonly<Record<string, (target: HTMLElement, callId: string) => void>> = {
  send: () => send(),
  cancel: () => post({ type: 'cancel' }),
  resume: (target) => {
    (target as HTMLButtonElement).disabled = true;
    post({ type: 'resume' });
  },
  'new-chat': () => post({ type: 'new-chat' }),
  'configure-model': () => post({ type: 'configure-model' }),
  history: () => {
    ui.historyOpen = !ui.historyOpen;
    if (ui.historyOpen) post({ type: 'list-sessions' });
    chrome.redraw();
    if (ui.historyOpen) chrome.history.opened();
  },
  'open-session': (target) => {
    const sessionId = target.dataset.sessionId;
    if (sessionId === undefined) return;
    ui.historyOpen = false;
    chrome.redraw();
    post({ type: 'open-session', sessionId });
  },
  'dismiss-error': () => {
    model.dismissError();
    requestFrame();
  },
  'jump-to-latest': () => list.scrollToEnd(),
  approve: (_target, callId) => decide(callId, true, false),
  'approve-all': (target) => approveAll(parseBatch(target.dataset.callIds)),
  deny: (_target, callId) => decide(callId, false, false),
  'allow-like-this': (target, callId) => {
    const choice = Number(target.dataset.ruleChoice ?? '0');
    decide(callId, true, true, Number.isInteger(choice) && choice >= 0 ? choice : 0);
  },
  'show-diff': (_target, callId) => post({ type: 'show-diff', callId }),
  'question-submit': (_target, callId) => answer(callId, true),
  'question-cancel': (_target, callId) => answer(callId, false),
  'restore-files': (target) => openRewind(target, false),
  'restore-fork': (target) => openRewind(target, true),
  'rewind-undo': (target) => openRewind(target, false),
  'rewind-cancel': () => {
    edits.cancelPending();
    model.closeRewind();
    requestFrame();
  },
  'rewind-open-diff': (target) => {
    const { checkpointId, path } = target.dataset;
    if (checkpointId !== undefined && path !== undefined) post({ type: 'rewind-show-diff', checkpointId, path });
  },
  'rewind-confirm': (target) => {
    const rewind = model.rewind;
    if (rewind === undefined || rewind.checkpointId !== target.dataset.checkpointId) return;
    // Overwriting files changed outside Zuno is what the button said it would do.
    const resend = edits.takePending(rewind.checkpointId);
    post({
      type: 'rewind-apply',
      checkpointId: rewind.checkpointId,
      force: target.dataset.force === 'true',
      fork: rewind.fork,
      ...(resend !== undefined ? { resend } : {}),
    });
    model.confirmRewind();
    requestFrame();
  },
  'copy-code': (target) => copyCode(target),
  'remove-attachment': (target) => {
    if (target.dataset.attachmentId !== undefined) attachments.remove(target.dataset.attachmentId);
  },
  'edit-message': (target) => {
    const item = model.transcript.items.find((candidate) => candidate.key === target.dataset.itemKey);
    if (item?.kind !== 'user') return;
    edits.start(item);
    list.invalidate(item.key);
  },
  'edit-cancel': (target) => {
    const key = target.dataset.itemKey;
    if (key === undefined) return;
    edits.stop(key);
    list.invalidate(key);
  },
  'edit-send': (target) => {
    if (target.dataset.itemKey !== undefined) sendEdit(target.dataset.itemKey);
  },
  'retry-last': () => {
    const last = lastUserMessage(model.transcript.items);
    if (last !== undefined) post({ type: 'resend', ordinal: last.ordinal, text: last.item.text });
  },
  'copy-message': (target) => {
    const item = model.transcript.items.find((candidate) => candidate.key === target.dataset.key);
    const text = item === undefined ? undefined : copyableText(item);
    if (text !== undefined) copyWithFeedback(target, text);
  },
  'error-action': (target) => {
    const action = ERROR_ACTIONS.find((known) => known === target.dataset.errorAction);
    if (action === undefined) return;
    model.dismissError();
    requestFrame();
    post({ type: 'error-action', action });
  },
  unqueue: (target) => {
    const id = target.dataset.queueId;
    const item = model.queue.find((queued) => queued.id === id);
    if (id === undefined || item === undefined) return;
    post({ type: 'unqueue', id });
    // A removed message is not thrown away: it goes back into the composer, images too, to edit or resend.
    restoreDraft(item.text, item.images);
  },
  'toggle-work-panel': () => {
    ui.workPanelCollapsed = !ui.workPanelCollapsed;
    persist();
    requestFrame();
  },
  'toggle-group': (_target, callId) => {
    ui.toggleExpanded(groupKey(callId));
    persist();
    for (const member of model.transcript.groupMembers(callId)) list.invalidate(toolKey(member.callId));
  },
  'toggle-details': (_target, callId) => {
    ui.toggleExpanded(callId);
    persist();
    list.invalidate(toolKey(callId));
  },
  // A delegated child's call, inside its task's card: `callId` is the task's.
  'toggle-child-details': (target, callId) => {
    const childCallId = target.dataset.childCallId;
    if (childCallId === undefined) return;
    ui.toggleExpanded(childDetailsKey(callId, childCallId));
    persist();
    list.invalidate(toolKey(callId));
  },
};

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest<HTMLElement>('[data-action]') : null;
  if (target === null || (target instanceof HTMLButtonElement && target.disabled)) return;
  const action = ACTIONS[target.dataset.action ?? ''];
  action?.(target, target.dataset.callId ?? '');
});

document.addEventListener('input', (event) => {
  const target = event.target;
  if (target === chrome.composer) {
    ui.draft = chrome.composer.value;
    persist();
    mentions.update();
    return;
  }
  if (!(target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement)) return;
  if (edits.input(target)) return;
  const callId = target.dataset.callId;
  if (callId === undefined) return;
  // Drafts are kept outside the DOM: a row scrolled out of view is discarded and drawn again.
  switch (target.dataset.input) {
    case 'deny-reason':
      ui.denyReasons.set(callId, target.value);
      return;
    case 'question-text':
      ui.questionDraft(callId).text = target.value;
      return;
    case 'question-option': {
      if (!(target instanceof HTMLInputElement)) return;
      const draft = ui.questionDraft(callId);
      // A radio replaces the choice; a checkbox adds or removes its own value.
      const others = target.type === 'radio' ? [] : draft.selected.filter((value) => value !== target.value);
      draft.selected = target.checked ? [...others, target.value] : others;
      return;
    }
  }
});

// The header's mode dropdown (issue 14 item 12); the host writes the setting and the status brings it back.
document.addEventListener('change', (event) => {
  const target = event.target;
  if (!(target instanceof HTMLSelectElement) || target.dataset.change !== 'permission-mode') return;
  const mode = chosenMode(target.value);
  if (mode !== undefined) post({ type: 'set-mode', mode });
});

// On a focused approval: Ctrl+Enter approves, Escape (outside the reason box) denies (issue 14 item 8).
document.addEventListener('keydown', (event) => {
  const target = event.target instanceof HTMLElement ? event.target : null;
  const approval = target?.closest<HTMLElement>('[data-testid="approval"]');
  const callId = approval?.dataset.callId;
  if (callId === undefined || ui.decided.has(callId) || !model.approvals.has(callId)) return;
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    decide(callId, true, false);
  } else if (event.key === 'Escape' && !(target instanceof HTMLInputElement)) {
    event.preventDefault();
    decide(callId, false, false);
  }
});

chrome.composer.addEventListener('paste', (event) => attachments.paste(event));
// Thumbnails sit just above the composer they belong to.
chrome.composer.parentElement?.before(attachments.root);

chrome.composer.addEventListener('keydown', (event) => {
  // An open @-mention list takes the arrows, Enter, Tab and Escape first.
  if (mentions.key(event)) {
    event.preventDefault();
    event.stopPropagation();
    return;
  }
  // Enter sends; Shift+Enter is a new line; Enter while an IME is composing belongs to the IME.
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});

// A caret moved by click or arrow keys can leave or enter a mention without any input.
chrome.composer.addEventListener('click', () => mentions.update());
chrome.composer.addEventListener('keyup', (event) => {
  if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) mentions.update();
});
chrome.composer.addEventListener('blur', () => mentions.close());

// src/hosts/vscode/webview-html.ts serves an empty `#app`; the body is the fallback for harnesses.
(document.getElementById('app') ?? document.body).append(chrome.root);
requestFrame();
post({ type: 'ready' });
