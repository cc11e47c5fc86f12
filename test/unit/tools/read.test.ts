import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ToolError } from '../../../src/core/errors';
import type { Host } from '../../../src/core/host';
import { createNodeHost } from '../../../src/hosts/node/host';
import { readTool } from '../../../src/tools/read';
import { approveEverything, makeTempDir, makeToolContext, removeDir, checkCall } from '../../support/tool-context';

const workspace = makeTempDir('zuno-read-');
after(() => removeDir(workspace));
const context = makeToolContext({ workspaceRoot: workspace });

async function read(args: Record<string, unknown>, ctx = context) {
  const parsed = readTool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  return readTool.run(parsed.args, await checkCall(readTool, parsed.args, ctx));
}

const lines = (count: number, width = 0): string =>
  Array.from({ length: count }, (_, index) => `line ${index + 1}`.padEnd(width, '.')).join('\n') + '\n';

test('T1: read declares ReadOnly, Safe, ParallelSafe (E3, R1)', () => {
  assert.deepEqual(readTool.declarationsFor({ path: 'x' }), { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' });
});

test('issue 2 §9: read returns numbered lines and says the whole file was shown', async () => {
  writeFileSync(join(workspace, 'small.txt'), 'alpha\r\nbeta\n\ngamma');
  const result = await read({ path: 'small.txt' });
  assert.equal(result.output, '     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma\n\n[small.txt: all 4 lines.]');
});

test('issue 2 §9: read pages with offset and limit and says how to continue', async () => {
  writeFileSync(join(workspace, 'ten.txt'), lines(10));
  const first = await read({ path: 'ten.txt', limit: 3 });
  assert.match(first.output, /^ {5}1\tline 1\n {5}2\tline 2\n {5}3\tline 3\n/);
  assert.match(first.output, /lines 1–3 of at least 4 .*offset=4/);
  const last = await read({ path: 'ten.txt', offset: 9 });
  assert.match(last.output, /^ {5}9\tline 9\n {4}10\tline 10\n\n\[ten\.txt: lines 9–10 of 10\.\]$/);
  await assert.rejects(
    read({ path: 'ten.txt', offset: 11 }),
    (error: unknown) => error instanceof ToolError && /has 10 lines; offset 11 is past the end/.test(error.message),
  );
});

test('issue 2 §9 a 1 GiB file is streamed: the first 2000 lines come back and the rest is never read', async () => {
  const path = join(workspace, 'huge.log');
  const fd = openSync(path, 'w');
  const block = Buffer.from(lines(20_000));
  writeSync(fd, block);
  closeSync(fd);
  // The rest is a sparse hole: a gigabyte on paper, nothing on disk.
  truncateSync(path, 1024 ** 3);
  let bytesRead = 0;
  const base = createNodeHost({ stateDir: join(workspace, '.state'), approvals: approveEverything });
  const counting: Host = {
    ...base,
    fs: {
      ...base.fs,
      async *readStream(file, signal) {
        for await (const chunk of base.fs.readStream(file, signal)) {
          bytesRead += chunk.length;
          yield chunk;
        }
      },
    },
  };
  const result = await read({ path: 'huge.log' }, makeToolContext({ workspaceRoot: workspace, host: counting }));
  assert.match(result.output, /^ {5}1\tline 1\n/);
  assert.match(result.output, /\n {2}2000\tline 2000\n/);
  assert.doesNotMatch(result.output, /\tline 2001\n/);
  assert.match(result.output, /lines 1–2000 of at least 2001 \(the file is 1\.0 GiB\)\. To read on, call read with offset=2001/);
  assert.ok(bytesRead < 1024 * 1024, `read ${bytesRead} bytes of a 1 GiB file`);
});

test('issue 2 §9 output stays under tool_output.max_bytes: reading stops at the cap and says where to resume', async () => {
  writeFileSync(join(workspace, 'wide.txt'), lines(2000, 100));
  const result = await read({ path: 'wide.txt' });
  assert.ok(Buffer.byteLength(result.output) <= 51_200);
  const last = Number(/lines 1–(\d+) of at least/.exec(result.output)?.[1]);
  assert.ok(last > 100 && last < 2000);
  assert.match(result.output, new RegExp(`size cap of 50\\.0 KiB\\. To read on, call read with offset=${last + 1}`));
});

test('issue 2 §9: a very long line is cut with a marker', async () => {
  writeFileSync(join(workspace, 'minified.js'), `${'x'.repeat(1_000_000)}\nshort\n`);
  const result = await read({ path: 'minified.js' });
  assert.match(result.output, /^ {5}1\tx{2000}… \[line cut: 1000000 characters\]\n {5}2\tshort\n/);
});

test('issue 2 §9: binary files are described, not dumped', async () => {
  writeFileSync(
    join(workspace, 'image.png'),
    Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.alloc(20_000, 7)]),
  );
  const png = await read({ path: 'image.png' });
  assert.match(png.output, /image\.png is a binary file \(19\.5 KiB\), so it is not shown/);
  writeFileSync(join(workspace, 'noise.bin'), Buffer.from(Array.from({ length: 4000 }, (_, index) => 0x80 + (index % 60))));
  assert.match((await read({ path: 'noise.bin' })).output, /noise\.bin is a binary file/);
  writeFileSync(join(workspace, 'unicode.txt'), 'héllo wörld — ✓\n');
  assert.match((await read({ path: 'unicode.txt' })).output, /\théllo wörld — ✓\n/);
});

test('issue 2 §9: a folder is listed sorted, folders marked with /', async () => {
  mkdirSync(join(workspace, 'tree', 'b-dir'), { recursive: true });
  writeFileSync(join(workspace, 'tree', 'c.txt'), '');
  writeFileSync(join(workspace, 'tree', 'a.txt'), '');
  symlinkSync(join(workspace, 'tree', 'b-dir'), join(workspace, 'tree', 'd-link'));
  const result = await read({ path: 'tree' });
  assert.equal(result.output, 'tree/ is a folder with 4 entries:\na.txt\nb-dir/\nc.txt\nd-link/');
  assert.match((await read({ path: 'tree', offset: 2, limit: 2 })).output, /showing 2–3; continue with offset=4\):\nb-dir\/\nc\.txt$/);
});

test('issue 2 §9 a missing path suggests near names: a typo in the folder and the same name elsewhere', async () => {
  mkdirSync(join(workspace, 'src', 'deep'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'index.ts'), '');
  writeFileSync(join(workspace, 'src', 'deep', 'config.json'), '');
  await assert.rejects(
    read({ path: 'src/indx.ts' }),
    (error: unknown) => error instanceof ToolError && /src\/indx\.ts does not exist .*Did you mean: src\/index\.ts/.test(error.message),
  );
  await assert.rejects(
    read({ path: 'config.json' }),
    (error: unknown) => error instanceof ToolError && /Did you mean: .*src\/deep\/config\.json/.test(error.message),
  );
  await assert.rejects(
    read({ path: 'zzzzqqq.xyz' }),
    (error: unknown) => error instanceof ToolError && /Use glob to find the file/.test(error.message),
  );
});

test('issue 2 §9: a pipe is refused rather than read forever', async () => {
  execFileSync('mkfifo', [join(workspace, 'pipe')]);
  await assert.rejects(read({ path: 'pipe' }), (error: unknown) => error instanceof ToolError && /not a regular file/.test(error.message));
});

test('issue 2 §9: an empty file says so', async () => {
  writeFileSync(join(workspace, 'empty.txt'), '');
  assert.equal((await read({ path: 'empty.txt' })).output, 'empty.txt is empty (0 bytes).');
});

test('§9: read refuses a symlink out of the workspace at run time when no rule names it', async () => {
  const outside = makeTempDir('zuno-read-outside-');
  after(() => removeDir(outside));
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  symlinkSync(join(outside, 'secret.txt'), join(workspace, 'innocent.txt'));
  const [subject] = await readTool.subjectsFor({ path: 'innocent.txt' }, context);
  assert.deepEqual([subject?.kind, subject?.value, subject?.outsideWorkspace], ['path', join(outside, 'secret.txt'), true]);
  await assert.rejects(read({ path: 'innocent.txt' }), /outside the workspace/);
});
