/**
 * End-to-end harness: the packaged extension in a real VS Code (code-server), driven through
 * Debian's Chromium with playwright-core. Each editor gets a fresh user-data dir, extensions dir,
 * workspace copy and port, so tests share nothing but the code-server install and the .vsix.
 *
 *   test('…', (t) => withEditor(t, { workspace: { 'a.txt': 'hi' } }, async (editor) => {
 *     const chat = await editor.openZuno();
 *     …
 *   }));
 *
 * When the body throws, a screenshot, the code-server log, the browser console and VS Code's own
 * logs are kept under test-results/<test name>/.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import {
  chromiumPath,
  ensureCodeServer,
  freePort,
  installExtension,
  repoRoot,
  requireSystemPackages,
  startCodeServer,
  writeUserSettings,
  type RunningServer,
} from '../../../scripts/code-server';
import { packageCurrentBuild } from '../../../scripts/package';

/** The launch flags that keep Debian's Chromium quiet and offline (see the shared e2e note). */
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The model name the harness configures; the scripted server lists it by default. */
export const SCRIPTED_MODEL = 'scripted-model';

/** The API key the harness hands the extension through ZUNO_API_KEY. */
export const E2E_API_KEY = 'e2e-test-key';

/** Default for one UI condition; generous because CI shares two cores with the extension host. */
export const UI_TIMEOUT_MS = 30_000;

export interface EditorOptions {
  /**
   * The workspace: a folder to copy, or files to write (path → content), into a fresh temp
   * folder. Tests may change it freely and assert on it through `editor.workspace`.
   */
  readonly workspace?: string | Readonly<Record<string, string>>;
  /** Extra user settings, merged over the harness's defaults. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Where the extension sends model requests (sets `zuno.model.baseUrl`). */
  readonly modelBaseUrl?: string;
  /** A .vsix to install instead of the packaged current build (the harness self-test uses this). */
  readonly vsix?: string;
  /** Extra environment for code-server and so for the extension host. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  /** Says what was awaited, for the timeout error. */
  readonly message?: string;
}

export interface Editor {
  readonly page: Page;
  /** The temp copy of the workspace that VS Code has open. */
  readonly workspace: string;
  readonly userDataDir: string;
  readonly url: string;
  /** Resolves to the first frame (webviews live in nested iframes) that has `selector`. */
  frameWith(selector: string, options?: WaitOptions): Promise<Frame>;
  /** Clicks the activity-bar entry whose label starts with `title` and returns the view's frame. */
  openView(title: string, selectorInView: string, options?: WaitOptions): Promise<Frame>;
  /** Opens the Zuno sidebar and returns the chat webview's frame. */
  openZuno(options?: WaitOptions): Promise<Frame>;
  /** Runs a command from the palette by (the start of) its title, e.g. "Zuno: Toggle Tools". */
  runCommand(title: string, options?: WaitOptions): Promise<void>;
  /** Polls `condition` until it is true. */
  waitFor(condition: () => boolean | Promise<boolean>, options?: WaitOptions): Promise<void>;
  /** Reloads the browser tab (a window reload) and waits for the workbench again. */
  reload(): Promise<void>;
  /** Keeps a screenshot and the logs under test-results/<name>/. */
  keepArtifacts(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** Present once the chat webview's script has rendered (media/chrome.ts). */
export const ZUNO_CHAT_SELECTOR = '[data-testid="composer"]';

export async function waitFor(condition: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? UI_TIMEOUT_MS);
  let lastError: unknown;
  for (;;) {
    try {
      if (await condition()) return;
    } catch (error: unknown) {
      // A frame detached or a page navigated mid-check: try again until the deadline.
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out waiting for ${options.message ?? 'a condition'}${cause}`);
    }
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

function prepareWorkspace(source: EditorOptions['workspace'], into: string): void {
  mkdirSync(into, { recursive: true });
  if (typeof source === 'string') {
    cpSync(source, into, { recursive: true });
    return;
  }
  for (const [path, content] of Object.entries(source ?? {})) {
    mkdirSync(dirname(join(into, path)), { recursive: true });
    writeFileSync(join(into, path), content);
  }
}

const safeName = (name: string): string => name.replace(/[^\w.-]+/g, '_').slice(0, 120);

/**
 * Starts a fresh editor on the workspace with the extension installed and activated by VS Code;
 * resolves once the workbench is on screen.
 */
export async function startEditor(options: EditorOptions = {}): Promise<Editor> {
  requireSystemPackages({ browser: true });
  const entry = await ensureCodeServer();
  const vsix = options.vsix ?? (await packageCurrentBuild()).vsix;
  const root = mkdtempSync(join(tmpdir(), 'zuno-e2e-'));
  const workspace = join(root, 'workspace');
  const dirs = { userDataDir: join(root, 'user-data'), extensionsDir: join(root, 'extensions') };
  const logFile = join(root, 'code-server.log');
  const consoleLog = join(root, 'browser-console.log');
  prepareWorkspace(options.workspace, workspace);
  writeUserSettings(dirs.userDataDir, {
    ...(options.modelBaseUrl !== undefined ? { 'zuno.model.baseUrl': options.modelBaseUrl, 'zuno.model.name': SCRIPTED_MODEL } : {}),
    ...options.settings,
  });

  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const stop = async (): Promise<void> => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await installExtension(entry, vsix, dirs);
    server = await startCodeServer({
      entry,
      ...dirs,
      port: await freePort(),
      folder: workspace,
      logFile,
      // The store lives outside the workspace (issue 9); keep it out of the real ~/.local/state.
      env: { ZUNO_API_KEY: E2E_API_KEY, XDG_STATE_HOME: join(root, 'state-home'), ...options.env },
    });
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('console', (message) => appendFileSync(consoleLog, `[${message.type()}] ${message.text()}\n`));
    page.on('pageerror', (error) => appendFileSync(consoleLog, `[pageerror] ${error.message}\n`));
    const url = server.url;
    // Waiting for 'load' costs ~10 s more (the workbench keeps fetching); the workbench element
    // is the signal that matters.
    const workbench = async (): Promise<void> => {
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    };
    await page.goto(url, { waitUntil: 'commit' });
    await workbench();

    const frameWith = async (selector: string, wait: WaitOptions = {}): Promise<Frame> => {
      let found: Frame | undefined;
      await waitFor(
        async () => {
          for (const frame of page.frames()) {
            if ((await frame.$(selector).catch(() => null)) !== null) {
              found = frame;
              return true;
            }
          }
          return false;
        },
        { message: `a frame with ${selector}`, ...wait },
      );
      if (found === undefined) throw new Error(`no frame with ${selector}`);
      return found;
    };

    const openView = async (title: string, selectorInView: string, wait: WaitOptions = {}): Promise<Frame> => {
      const entryPoint = page.locator(`.activitybar li.action-item a[aria-label^="${title}"]`);
      await entryPoint.waitFor({ timeout: wait.timeoutMs ?? UI_TIMEOUT_MS });
      // Clicking an entry that is already open (its <li> is "checked", e.g. after a reload
      // restored the sidebar) would close it.
      const open = await page.locator(`.activitybar li.action-item.checked a[aria-label^="${title}"]`).count();
      if (open === 0) await entryPoint.click();
      return frameWith(selectorInView, { message: `${selectorInView} in the ${title} view`, ...wait });
    };

    const runCommand = async (title: string, wait: WaitOptions = {}): Promise<void> => {
      const timeout = wait.timeoutMs ?? UI_TIMEOUT_MS;
      // A view that takes focus just then (a chat revealed by the previous command) closes the
      // palette again, so it is opened until it stays open for the fill.
      const input = page.locator('.quick-input-widget input');
      const deadline = Date.now() + timeout;
      for (;;) {
        // Take focus out of any webview or editor first, so F1 reaches the workbench's keybindings
        // and not a text field. (A string, because this tsconfig has no DOM types.)
        await page.evaluate('document.activeElement?.blur()');
        await page.keyboard.press('F1');
        try {
          await input.fill(`>${title}`, { timeout: Math.min(5_000, Math.max(1, deadline - Date.now())) });
          break;
        } catch (error) {
          if (Date.now() >= deadline) throw error;
        }
      }
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      await row.waitFor({ timeout });
      await row.click();
    };

    const keepArtifacts = async (name: string): Promise<string> => {
      const folder = join(repoRoot, 'test-results', safeName(name));
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder, { recursive: true });
      await page.screenshot({ path: join(folder, 'screenshot.png'), fullPage: true }).catch(() => undefined);
      for (const file of [logFile, consoleLog]) {
        if (existsSync(file)) cpSync(file, join(folder, file.slice(root.length + 1)));
      }
      // VS Code's own logs, including the extension host's and each extension's output channel.
      const vscodeLogs = join(dirs.userDataDir, 'logs');
      if (existsSync(vscodeLogs)) cpSync(vscodeLogs, join(folder, 'vscode-logs'), { recursive: true });
      return folder;
    };

    return {
      page,
      workspace,
      userDataDir: dirs.userDataDir,
      url,
      frameWith,
      openView,
      openZuno: (wait) => openView('Zuno', ZUNO_CHAT_SELECTOR, wait),
      runCommand,
      waitFor,
      reload: async () => {
        await page.reload({ waitUntil: 'commit' });
        await workbench();
      },
      keepArtifacts,
      stop,
    };
  } catch (error: unknown) {
    // Startup failed: keep the server log where the developer will look for it.
    const folder = join(repoRoot, 'test-results', `startup-${Date.now()}`);
    mkdirSync(folder, { recursive: true });
    if (existsSync(logFile)) cpSync(logFile, join(folder, 'code-server.log'));
    await stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the editor did not start: ${reason}\n(code-server log kept in ${folder})`, { cause: error });
  }
}

/** The subset of node:test's TestContext the harness needs. */
export interface NamedTest {
  readonly name: string;
  diagnostic(message: string): void;
}

/**
 * Runs `body` with a fresh editor and always stops it. When `body` throws, the artifacts are kept
 * under test-results/<test name>/, and the test's report says where.
 */
export async function withEditor(test: NamedTest, options: EditorOptions, body: (editor: Editor) => Promise<void>): Promise<void> {
  const editor = await startEditor(options);
  try {
    await body(editor);
  } catch (error: unknown) {
    test.diagnostic(`screenshot and logs kept in ${await editor.keepArtifacts(test.name)}`);
    throw error;
  } finally {
    await editor.stop();
  }
}
