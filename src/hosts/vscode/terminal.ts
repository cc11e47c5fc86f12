/**
 * The "Zuno" terminal: a Pseudoterminal that shows what `MirroredProcessRunner` writes. It is
 * created on the first mirrored command and again after the user closes it.
 */
import * as vscode from 'vscode';
import { TerminalScreen, type MirrorSink } from './terminal-mirror';

export class MirrorTerminal implements vscode.Disposable {
  private terminal: vscode.Terminal | undefined;
  private screen: TerminalScreen | undefined;
  private readonly closed: vscode.Disposable;

  constructor(private readonly interrupt: () => boolean) {
    this.closed = vscode.window.onDidCloseTerminal((terminal) => {
      if (terminal === this.terminal) {
        this.terminal = undefined;
        this.screen = undefined;
      }
    });
  }

  /** The sink for the next command, creating (and revealing, without focus) the terminal. */
  sink(): MirrorSink {
    if (this.screen) return this.screen;
    const writes = new vscode.EventEmitter<string>();
    const screen = new TerminalScreen((text) => writes.fire(text), this.interrupt);
    const pty: vscode.Pseudoterminal = {
      onDidWrite: writes.event,
      open: () => screen.open(),
      close: () => writes.dispose(),
      handleInput: (data) => screen.input(data),
    };
    this.terminal = vscode.window.createTerminal({ name: 'Zuno', pty, iconPath: new vscode.ThemeIcon('zap') });
    this.terminal.show(true);
    this.screen = screen;
    return screen;
  }

  dispose(): void {
    this.closed.dispose();
    this.terminal?.dispose();
  }
}
