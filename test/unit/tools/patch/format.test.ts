// File format preservation for apply_patch and edit (issue 3 "File details": line endings, BOM,
// final newline), decoded from and encoded back to real bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolError } from '../../../../src/core/errors';
import { adoptText, decodeText, encodeText, renderText, withLines } from '../../../../src/tools/patch/format';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

test('issue 3: decoding then encoding gives back the same bytes: CRLF, BOM, no final newline, empty, blank-only', () => {
  for (const text of ['a\nb\n', 'a\r\nb\r\n', '\uFEFFa\r\nb', 'no newline', '', '\n', '\r\n\r\n', 'lone\rcarriage\n']) {
    assert.deepEqual(encodeText(decodeText(bytes(text), 'f')), bytes(text), JSON.stringify(text));
  }
});

test('issue 3: the line ending is detected per file; mixed endings take the majority, ties go to LF', () => {
  assert.equal(decodeText(bytes('a\r\nb\r\nc\n'), 'f').format.lineEnding, '\r\n');
  assert.equal(decodeText(bytes('a\r\nb\nc\n'), 'f').format.lineEnding, '\n');
  assert.equal(decodeText(bytes('a\r\nb\n'), 'f').format.lineEnding, '\n');
  assert.equal(new TextDecoder().decode(encodeText(decodeText(bytes('a\r\nb\r\nc\n'), 'f'))), 'a\r\nb\r\nc\r\n');
});

test('issue 3: the lines, BOM and final-newline state are separate from the text', () => {
  const file = decodeText(bytes('\uFEFFx\r\ny'), 'f');
  assert.deepEqual(file, { format: { lineEnding: '\r\n', byteOrderMark: true }, lines: ['x', 'y'], endsWithNewline: false });
  assert.equal(renderText(file), 'x\r\ny');
});

test("issue 3 approvedEdits: the user's edited text takes the file's endings and BOM, and keeps its own final newline", () => {
  const adopted = adoptText('one\ntwo\n', { lineEnding: '\r\n', byteOrderMark: true });
  assert.deepEqual(encodeText(adopted), bytes('\uFEFFone\r\ntwo\r\n'));
  assert.equal(adoptText('one', { lineEnding: '\n', byteOrderMark: false }).endsWithNewline, false);
});

test('issue 3: invalid UTF-8 and NUL bytes are refused as binary, naming the file', () => {
  assert.throws(
    () => decodeText(new Uint8Array([0x61, 0xff, 0x62]), 'img.png'),
    (error: unknown) => error instanceof ToolError && /^img\.png is not valid UTF-8 text/.test(error.message),
  );
  assert.throws(
    () => decodeText(bytes('a\u0000b'), 'data.bin'),
    (error: unknown) => error instanceof ToolError && /^data\.bin looks binary/.test(error.message),
  );
});

test('issue 3: new lines keep the final-newline state; an empty file that gets lines ends with one; an emptied file is empty', () => {
  const render = (before: string, lines: string[]): string =>
    new TextDecoder().decode(encodeText(withLines(decodeText(bytes(before), 'f'), lines)));
  assert.equal(render('a\nb', ['x', 'y']), 'x\ny');
  assert.equal(render('a\r\n', ['x', 'y']), 'x\r\ny\r\n');
  assert.equal(render('', ['x']), 'x\n');
  assert.equal(render('a\n', []), '');
});
