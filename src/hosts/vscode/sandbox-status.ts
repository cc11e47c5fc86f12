/** The status bar item saying whether commands run in the sandbox (issue 12): never silent when they do not. */
import * as vscode from 'vscode';
import type { ZunoConfig } from '../../core/config';
import type { Host } from '../../core/host';
import { sandboxStatus } from '../../core/sandbox';

export class SandboxStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('zuno.sandbox', vscode.StatusBarAlignment.Left, 9);

  constructor() {
    this.item.name = 'Zuno sandbox';
    this.item.command = { title: 'Sandbox settings', command: 'workbench.action.openSettings', arguments: ['zuno.sandbox'] };
  }

  /** Detection runs once per bwrap path (cached by the host), so this is cheap after the first time. */
  async refresh(host: Host, config: ZunoConfig): Promise<void> {
    const availability = host.sandbox
      ? await host.sandbox.availability(config.sandbox.bwrap_path)
      : { available: false as const, reason: 'this host has no sandbox', fix: '' };
    const status = sandboxStatus(config, availability);
    this.item.text = `${status.warning ? '$(warning)' : '$(lock)'} ${status.text}`;
    this.item.tooltip = status.tooltip;
    this.item.backgroundColor = status.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
