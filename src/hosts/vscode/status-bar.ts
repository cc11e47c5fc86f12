/** The status bar item: the permission mode and how many calls run now; a click changes the mode. */
import * as vscode from 'vscode';

const MODE_ICONS: Readonly<Record<string, string>> = { strict: '$(shield)', 'auto-edit': '$(edit)', auto: '$(unlock)' };

export class ZunoStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('zuno.status', vscode.StatusBarAlignment.Left, 10);

  constructor() {
    this.item.name = 'Zuno';
    this.item.command = 'zuno.setPermissionMode';
  }

  /** `mode` is undefined while the configuration is invalid. */
  update(mode: string | undefined, runningCalls: number): void {
    const modeText = mode === undefined ? '$(warning) Zuno: config invalid' : `${MODE_ICONS[mode] ?? '$(shield)'} Zuno: ${mode}`;
    this.item.text = runningCalls > 0 ? `${modeText} $(sync~spin) ${runningCalls}` : modeText;
    this.item.tooltip =
      (mode === undefined ? 'Zuno’s configuration is invalid; see the notification.' : `Permission mode: ${mode}.`) +
      ` ${runningCalls} tool call${runningCalls === 1 ? '' : 's'} running. Click to change the permission mode.`;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
