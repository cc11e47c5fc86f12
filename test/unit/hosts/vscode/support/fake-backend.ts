/**
 * The one stand-in for the editor's ChatBackend in the chat tests (issue 14 cleanup): a backend
 * with no store, no model and no session, every method harmless. Tests override only what they
 * exercise, so a method the controller gains is added here once, not in every test's fake.
 */
import type { QueuedPrompt } from '../../../../../src/agent/loop';
import type { PermissionMode } from '../../../../../src/core/config';
import type { ZunoEvent } from '../../../../../src/core/events';
import type { ImagePart } from '../../../../../src/core/transcript';
import type { ChatBackend } from '../../../../../src/hosts/vscode/chat-controller';
import type { StoredSession } from '../../../../../src/hosts/vscode/chat-history';
import type { ViewStatus } from '../../../../../src/webview/protocol';

export class FakeChatBackend implements ChatBackend {
  async open(): Promise<void> {
    return undefined;
  }
  events(_sessionId: string): readonly ZunoEvent[] {
    return [];
  }
  callOutput(_sessionId: string, _callId: string): string | undefined {
    return undefined;
  }
  sessions(): readonly StoredSession[] {
    return [];
  }
  hasSession(_sessionId: string): boolean {
    return false;
  }
  interrupted(_sessionId: string): boolean {
    return false;
  }
  async run(
    _prompt: string,
    _sessionId: string | undefined,
    _signal: AbortSignal,
    _takeQueued?: () => readonly QueuedPrompt[],
    _images?: readonly ImagePart[],
  ): Promise<void> {
    return undefined;
  }
  imageRefusal(_images: number): string | undefined {
    return undefined;
  }
  async compact(_sessionId: string, _signal: AbortSignal): Promise<boolean> {
    return false;
  }
  status(running: boolean): ViewStatus {
    return { permissionMode: 'strict', modelLabel: 'm', running };
  }
  configureModel(): void {
    return undefined;
  }
  async forkBefore(_sessionId: string, _ordinal: number): Promise<string> {
    throw new Error('forkBefore is not scripted in this test.');
  }
  async setPermissionMode(_mode: PermissionMode): Promise<void> {
    return undefined;
  }
  editorAction(_action: 'set-api-key' | 'open-settings'): void {
    return undefined;
  }
  rememberSession(_sessionId: string | undefined): void {
    return undefined;
  }
  log(_message: string): void {
    return undefined;
  }
}

/** A FakeChatBackend with these methods (and optional parts: history, rewinds, mentions) replaced. */
export function fakeBackend(overrides: Partial<ChatBackend> = {}): ChatBackend {
  return Object.assign(new FakeChatBackend(), overrides);
}
