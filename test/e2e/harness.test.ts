// The e2e harness proves itself on a tiny probe extension, independent of Zuno's own code: when a
// Zuno scenario fails, this test tells whether the editor, the browser or the packaging broke.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runVsce } from '../../scripts/package';
import { withEditor } from './support/editor';

/** A packaged extension with an activity-bar webview view, a command and a setting. */
async function packageProbe(folder: string): Promise<string> {
  const manifest = {
    name: 'harness-probe',
    publisher: 'zuno-dev',
    version: '0.0.1',
    engines: { vscode: '^1.100.0' },
    main: './extension.js',
    contributes: {
      viewsContainers: { activitybar: [{ id: 'probe', title: 'Probe', icon: 'probe.svg' }] },
      views: { probe: [{ type: 'webview', id: 'probe.view', name: 'Probe' }] },
      commands: [{ command: 'probe.writeMarker', title: 'Probe: Write Marker' }],
      configuration: { properties: { 'probe.word': { type: 'string', default: 'default' } } },
    },
  };
  // The greeting comes from the server's environment and the marker's text from settings.json:
  // the two ways `npm start` and the tests hand configuration to the real extension.
  const extension = `
const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(vscode.window.registerWebviewViewProvider('probe.view', {
    resolveWebviewView(view) {
      view.webview.html = '<!DOCTYPE html><html><body><h1 id="probe-hello">' + process.env.PROBE_GREETING + '</h1></body></html>';
    },
  }));
  context.subscriptions.push(vscode.commands.registerCommand('probe.writeMarker', async () => {
    const folder = vscode.workspace.workspaceFolders[0].uri;
    const word = vscode.workspace.getConfiguration('probe').get('word');
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder, 'marker.txt'), Buffer.from(word));
  }));
};
`;
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(folder, 'extension.js'), extension);
  writeFileSync(join(folder, 'README.md'), '# harness probe\n');
  writeFileSync(
    join(folder, 'probe.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6"/></svg>',
  );
  const vsix = join(folder, 'probe.vsix');
  await runVsce(folder, vsix);
  return vsix;
}

test('issue 5: e2e harness: a packaged extension installs, activates, shows its webview view, runs a palette command and keeps artifacts', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'zuno-probe-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const vsix = await packageProbe(join(scratch, 'probe'));

  await withEditor(
    t,
    {
      vsix,
      workspace: { 'notes.txt': 'a workspace file\n' },
      settings: { 'probe.word': 'from settings.json' },
      env: { PROBE_GREETING: 'hello from the probe' },
    },
    async (editor) => {
      assert.equal(readFileSync(join(editor.workspace, 'notes.txt'), 'utf8'), 'a workspace file\n');

      const view = await editor.openView('Probe', '#probe-hello');
      assert.equal(await view.textContent('#probe-hello'), 'hello from the probe');
      // With the focus inside the webview, the palette must still open.
      await view.click('#probe-hello');

      await editor.runCommand('Probe: Write Marker');
      const marker = join(editor.workspace, 'marker.txt');
      await editor.waitFor(() => existsSync(marker), { message: 'the command to write marker.txt' });
      assert.equal(readFileSync(marker, 'utf8'), 'from settings.json');

      // Opening a view that is already open must leave it open (a second click would close it).
      const again = await editor.openView('Probe', '#probe-hello');
      assert.equal(await again.textContent('#probe-hello'), 'hello from the probe');

      const kept = await editor.keepArtifacts('harness self-test');
      t.after(() => rmSync(kept, { recursive: true, force: true }));
      assert.ok(existsSync(join(kept, 'screenshot.png')), 'a screenshot is kept');
      assert.match(readFileSync(join(kept, 'code-server.log'), 'utf8'), /HTTP server listening/);
    },
  );
});
