/**
 * Diff previews for write, apply_patch and edit (issue 4). The proposed contents live in an
 * in-memory file system under the `zuno-proposal:` scheme, registered with
 * `registerFileSystemProvider` rather than as a read-only TextDocumentContentProvider: the right
 * side of the diff must stay editable, because what the user types there is what lands (the
 * complaint against Cline 4.x was exactly that its edit view lost editability). The left side is
 * the real file, live, so the user compares against what is on disk now.
 */
import * as vscode from 'vscode';
import { promises as fsp, realpathSync } from 'node:fs';
import { basename } from 'node:path';
import type { FileChange } from '../../core/host';
import type { ApprovalEnvironment } from './approval-state';
import type { ToWebview } from '../../webview/protocol';
import type { PermissionRule } from '../../core/config';
import { callIdOfAuthority, proposalAuthority, proposalPath, proposalTitle } from './proposal-names';

export const PROPOSAL_SCHEME = 'zuno-proposal';

interface MemoryFile {
  data: Uint8Array;
  readonly ctime: number;
  mtime: number;
  readonly readonly: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The call goes in the authority, so the path the breadcrumbs show is the file's own, relative to
 * the workspace (`src › cart.js`, not `call_4_0 › proposed › tmp…`, issue 14 item 13), and it ends
 * in the real file name, so the editor picks the right language.
 */
export function proposalUri(callId: string, side: 'proposed' | 'original', path: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: PROPOSAL_SCHEME,
    authority: proposalAuthority(callId),
    path: proposalPath(side, vscode.workspace.asRelativePath(path, false)),
  });
}

/** The call a proposal document belongs to, or undefined for any other document. */
export function proposalCallOf(uri: vscode.Uri): string | undefined {
  return uri.scheme === PROPOSAL_SCHEME ? callIdOfAuthority(uri.authority) : undefined;
}

/** A proposal file's key: its call and its path. */
const fileKey = (uri: vscode.Uri): string => `${uri.authority}${uri.path}`;

/** An in-memory file system holding proposals until their approval is decided. */
export class ProposalFileSystem implements vscode.FileSystemProvider {
  private readonly files = new Map<string, MemoryFile>();
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;

  /** Creates a file unless it exists: showing a diff again must not erase the user's edits. */
  seed(uri: vscode.Uri, text: string, readonly: boolean): void {
    if (this.files.has(fileKey(uri))) return;
    const now = Date.now();
    this.files.set(fileKey(uri), { data: encoder.encode(text), ctime: now, mtime: now, readonly });
  }

  has(uri: vscode.Uri): boolean {
    return this.files.has(fileKey(uri));
  }

  text(uri: vscode.Uri): string | undefined {
    const file = this.files.get(fileKey(uri));
    return file ? decoder.decode(file.data) : undefined;
  }

  /** Forgets every file of one proposal. */
  forget(callId: string): void {
    const prefix = `${proposalAuthority(callId)}/`;
    for (const key of [...this.files.keys()]) if (key.startsWith(prefix)) this.files.delete(key);
  }

  watch(): vscode.Disposable {
    // Nothing changes these files behind the editor's back, so there is nothing to watch.
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const file = this.files.get(fileKey(uri));
    if (file) {
      return {
        type: vscode.FileType.File,
        ctime: file.ctime,
        mtime: file.mtime,
        size: file.data.byteLength,
        ...(file.readonly ? { permissions: vscode.FilePermission.Readonly } : {}),
      };
    }
    const prefix = fileKey(uri).endsWith('/') ? fileKey(uri) : `${fileKey(uri)}/`;
    if ([...this.files.keys()].some((key) => key.startsWith(prefix)))
      return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    throw vscode.FileSystemError.FileNotFound(uri);
  }

  readDirectory(uri: vscode.Uri): [string, vscode.FileType][] {
    const prefix = fileKey(uri).endsWith('/') ? fileKey(uri) : `${fileKey(uri)}/`;
    const entries = new Map<string, vscode.FileType>();
    for (const key of this.files.keys()) {
      if (!key.startsWith(prefix)) continue;
      const [name = '', ...rest] = key.slice(prefix.length).split('/');
      entries.set(name, rest.length > 0 ? vscode.FileType.Directory : vscode.FileType.File);
    }
    return [...entries];
  }

  createDirectory(): void {
    // Directories exist implicitly, as prefixes of the files.
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const file = this.files.get(fileKey(uri));
    if (!file) throw vscode.FileSystemError.FileNotFound(uri);
    return file.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array, options: { readonly create: boolean; readonly overwrite: boolean }): void {
    const file = this.files.get(fileKey(uri));
    if (!file) {
      // Only proposals Zuno made exist here; saving elsewhere in this scheme is refused.
      if (!options.create) throw vscode.FileSystemError.FileNotFound(uri);
      throw vscode.FileSystemError.NoPermissions('Zuno proposals cannot be created by hand.');
    }
    if (file.readonly) throw vscode.FileSystemError.NoPermissions(uri);
    file.data = content;
    file.mtime = Date.now();
    this.changes.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    this.files.delete(fileKey(uri));
    this.changes.fire([{ type: vscode.FileChangeType.Deleted, uri }]);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('Zuno proposals cannot be renamed.');
  }

  dispose(): void {
    this.changes.dispose();
  }
}

const realpathOrSelf = (path: string): string => {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
};

const BYTE_ORDER_MARK = '\uFEFF';

/** The editor side of the approval state machine (`approval-state.ts`). */
export class EditorApprovals implements ApprovalEnvironment {
  constructor(
    private readonly files: ProposalFileSystem,
    readonly post: (message: ToWebview) => void,
    private readonly appendRule: (rule: PermissionRule) => Promise<void>,
  ) {}

  async showDiff(callId: string, changes: readonly FileChange[]): Promise<void> {
    for (const change of changes) {
      const target = change.movedTo ?? change.path;
      const right = proposalUri(callId, 'proposed', target);
      this.files.seed(right, change.after ?? '', change.kind === 'delete');
      let left: vscode.Uri;
      if (change.before === undefined) {
        left = proposalUri(callId, 'original', change.path);
        this.files.seed(left, '', true);
      } else {
        left = vscode.Uri.file(change.path);
      }
      await vscode.commands.executeCommand(
        'vscode.diff',
        left,
        right,
        proposalTitle(change.kind, basename(change.path), basename(target)),
        {
          preview: false,
        },
      );
    }
  }

  async proposedText(callId: string, change: FileChange): Promise<string | undefined> {
    const uri = proposalUri(callId, 'proposed', change.movedTo ?? change.path);
    const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
    if (open) return open.getText();
    return this.files.text(uri);
  }

  unsavedPaths(paths: readonly string[]): readonly string[] {
    // Compared as real paths: the tools report real paths, an editor may show a symlinked one.
    const dirty = new Set(
      vscode.workspace.textDocuments
        .filter((document) => document.isDirty && document.uri.scheme === 'file')
        .map((document) => realpathOrSelf(document.uri.fsPath)),
    );
    return paths.filter((path) => dirty.has(realpathOrSelf(path)));
  }

  async currentText(path: string): Promise<string | undefined> {
    let bytes: Uint8Array;
    try {
      bytes = await fsp.readFile(path);
    } catch (error) {
      const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
    const text = decoder.decode(bytes);
    return text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
  }

  addAllowRule(rule: PermissionRule): Promise<void> {
    return this.appendRule(rule);
  }

  /** Closes the proposal's diff tabs without a "save changes?" prompt, then drops its files. */
  async discardProposals(callId: string): Promise<void> {
    const ours = (uri: vscode.Uri): boolean => proposalCallOf(uri) === callId;
    for (const document of vscode.workspace.textDocuments) {
      // Saving into the in-memory file system is harmless and spares the user a prompt on close.
      if (ours(document.uri) && document.isDirty) await document.save();
    }
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && ours(tab.input.modified));
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
    this.files.forget(callId);
  }
}
