/**
 * Everything around the transcript: the header (New chat, History, Cancel), the status line, the
 * first-run setup hint, the error banner, the session history list and the composer. It is
 * redrawn only when the model's `chromeVersion` moves, which streaming never does.
 */
import { actionButton, element } from './dom';
import { HeaderPickers } from './header-pickers';
import { lastUserMessage } from './resend-target';
import { HistoryPanel } from './history-view';
import { renderQueue } from './queue-view';
import { ERROR_ACTION_LABELS } from '../src/webview/editor-words';
import type { UiState } from './ui-state';
import type { ViewModel } from './view-model';

export class Chrome {
  readonly root: HTMLElement;
  readonly transcript: HTMLElement;
  readonly composer: HTMLTextAreaElement;
  private readonly cancelButton = actionButton(
    'Cancel',
    'cancel',
    { 'data-testid': 'cancel', title: 'Stop the running turn' },
    'button secondary',
  );
  private readonly historyButton = actionButton(
    'History',
    'history',
    { 'data-testid': 'history', 'aria-expanded': 'false' },
    'button secondary',
  );
  private readonly status = element('div', { className: 'status', attributes: { 'data-testid': 'status', role: 'status' } });
  private readonly meter = element('div', { className: 'context-meter', attributes: { 'data-testid': 'context-meter' } });
  private readonly setupHint = element('div', { className: 'setup-hint', attributes: { 'data-testid': 'setup-hint', role: 'alert' } });
  private readonly errorBanner = element('div', {
    className: 'error-banner',
    attributes: { 'data-testid': 'error-banner', role: 'alert' },
  });
  /** Search, rename and delete past chats (issue 14 item 10). */
  readonly history: HistoryPanel;
  /** Stop beside Send while Zuno works (issue 14 item 8), as in the editors people come from. */
  private readonly stopButton = actionButton(
    'Stop',
    'cancel',
    { 'data-testid': 'stop', title: 'Stop the running turn' },
    'button secondary',
  );
  /** Retry on the last answer (issue 14): the last message sent again as a new turn. */
  private readonly retryButton = actionButton(
    'Retry',
    'retry-last',
    { 'data-testid': 'retry-last', title: 'Send your last message again from before its answer (nothing it ran is replayed)' },
    'button secondary',
  );
  private readonly queuePanel = element('div', { className: 'queue-panel', attributes: { 'data-testid': 'queue' } });
  private readonly jumpButton = actionButton('Jump to latest', 'jump-to-latest', { 'data-testid': 'jump-to-latest' }, 'button jump');
  private readonly pickers = new HeaderPickers();
  private renderedChrome = -1;

  constructor(
    private readonly model: ViewModel,
    private readonly ui: UiState,
  ) {
    this.transcript = element('div', {
      className: 'transcript',
      attributes: { 'data-testid': 'transcript', role: 'log', 'aria-label': 'Conversation', tabindex: '0' },
    });
    this.composer = element('textarea', {
      className: 'composer-input',
      attributes: {
        'data-testid': 'composer',
        rows: '3',
        placeholder: 'Ask Zuno to do something (Enter to send, Shift+Enter for a new line)',
        'aria-label': 'Message',
      },
    });
    this.composer.value = ui.draft;
    this.history = new HistoryPanel(model);
    const header = element(
      'header',
      { className: 'header' },
      element(
        'div',
        { className: 'header-actions' },
        actionButton('New chat', 'new-chat', { 'data-testid': 'new-chat' }, 'button secondary'),
        this.historyButton,
        this.cancelButton,
      ),
      this.pickers.root,
      this.status,
      this.meter,
    );
    const composerBar = element(
      'div',
      { className: 'composer' },
      this.composer,
      actionButton('Send', 'send', { 'data-testid': 'send' }, 'button primary'),
      this.stopButton,
      this.retryButton,
    );
    this.root = element(
      'div',
      { className: 'app' },
      header,
      this.setupHint,
      this.errorBanner,
      this.history.root,
      element('div', { className: 'transcript-frame' }, this.transcript, this.jumpButton),
      this.queuePanel,
      composerBar,
    );
    this.jumpButton.hidden = true;
  }

  /** Shows "Jump to latest" only while the reader has scrolled away from the end. */
  setFollowing(following: boolean): void {
    this.jumpButton.hidden = following;
  }

  update(): void {
    if (this.renderedChrome === this.model.chromeVersion) return;
    this.renderedChrome = this.model.chromeVersion;
    this.redraw();
  }

  /** Redraws after a UI-only change (history opened or closed). */
  redraw(): void {
    const { status, error } = this.model;

    // The model and the mode are in the header's pickers; the status line says what is happening.
    this.pickers.update(status);
    this.status.replaceChildren();
    if (status.running)
      this.status.append(element('span', { className: 'running-indicator', text: 'Running…', attributes: { 'data-testid': 'running' } }));
    // Without checkpoints (no git on PATH, or turned off) no message can be restored: say so, and why.
    if (status.checkpointsOff !== undefined)
      this.status.append(
        element('div', { className: 'checkpoints-off', text: status.checkpointsOff, attributes: { 'data-testid': 'checkpoints-off' } }),
      );
    this.status.dataset.running = String(status.running);
    this.transcript.setAttribute('aria-busy', String(status.running));
    this.cancelButton.disabled = !status.running;
    this.stopButton.hidden = !status.running;
    this.retryButton.hidden = status.running || lastUserMessage(this.model.transcript.items) === undefined;

    const meterLabel = this.model.meter.label();
    this.meter.hidden = meterLabel === undefined;
    const fill = this.model.meter.fill;
    this.meter.replaceChildren(
      // A native <meter>: no inline style, which the view's CSP forbids.
      ...(fill !== undefined
        ? [
            element('meter', {
              attributes: {
                min: '0',
                max: '1',
                low: '0.6',
                high: '0.8',
                optimum: '0',
                value: fill.toFixed(3),
                'aria-label': 'Context used',
              },
            }),
          ]
        : []),
      element('span', { className: 'context-meter-text', text: meterLabel ?? '' }),
    );

    this.setupHint.hidden = status.setupHint === undefined;
    if (status.setupHint !== undefined) {
      this.setupHint.replaceChildren(
        element('div', { className: 'setup-title', text: 'Set up a model to start' }),
        element('div', { className: 'setup-text', text: status.setupHint }),
        actionButton('Configure model', 'configure-model', { 'data-testid': 'configure-model' }, 'button primary'),
      );
    }

    this.errorBanner.hidden = error === undefined;
    if (error !== undefined) {
      this.errorBanner.replaceChildren(
        element('span', { className: 'error-text', text: error }),
        ...this.model.errorActions.map((action) =>
          actionButton(
            ERROR_ACTION_LABELS[action],
            'error-action',
            { 'data-error-action': action, 'data-testid': `error-${action}` },
            'button secondary',
          ),
        ),
        actionButton('Dismiss', 'dismiss-error', { 'data-testid': 'dismiss-error' }, 'link-button'),
      );
    }

    const queued = renderQueue(this.model.queue);
    this.queuePanel.hidden = queued.length === 0;
    this.queuePanel.replaceChildren(...queued);

    this.historyButton.setAttribute('aria-expanded', String(this.ui.historyOpen));
    this.history.root.hidden = !this.ui.historyOpen;
    if (this.ui.historyOpen) this.history.render();
  }
}
