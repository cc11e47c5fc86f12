// The journal writer's reserve (issue 9): zeros written ahead of the journal's end, which lines
// overwrite, which a retraction, a reset and closing cut off, and which readers never see.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { JournalWriter, RESERVE_BYTES, journalBytesOnDisk, readJournal } from '../../../src/store/journal';
import type { JournalOperation } from '../../../src/store/journal';
import { journalText, temporaryDirectory } from '../../support/store-fixtures';

const insert = (value: string): JournalOperation[] => [['INSERT INTO t (v) VALUES (?)', [value]]];
const values = (path: string): unknown[] => readJournal(path, 0).entries.map((entry) => entry.operations[0]?.[1][0]);

test('issue 9: lines overwrite the reserve without growing the file; retract, reset and close cut the zeros off; a reader sees the lines alone', async (context) => {
  const path = join(temporaryDirectory(context), 'journal.jsonl');
  const journal = new JournalWriter(path, 0, 0);
  let closed = false;
  context.after(() => (closed ? undefined : journal.closeSync()));

  journal.append(insert('a'));
  assert.equal(journal.reserveLow, true);
  assert.equal(journal.reserve(), true);
  assert.equal(statSync(path).size, journal.bytes + RESERVE_BYTES);
  assert.equal(journal.reserve(), false, 'a full reserve is not written again');
  assert.equal(journalBytesOnDisk(path), journal.bytes, 'a listing counts the journal, not the zeros after it');

  const fileBytes = statSync(path).size;
  const second = journal.append(insert('b'));
  await journal.syncThrough(second);
  assert.equal(statSync(path).size, fileBytes, 'the line went into the zeros');
  assert.deepEqual(values(path), ['a', 'b']);
  assert.equal(Buffer.byteLength(journalText(path)), journal.bytes);

  // A line whose statements failed is cut off, and the zeros after it with it.
  const third = journal.append(insert('c'), true);
  journal.retract(third);
  assert.equal(statSync(path).size, journal.bytes);
  assert.deepEqual(values(path), ['a', 'b']);
  assert.equal(journal.append(insert('d')), third, 'the next line takes the retracted sequence');
  assert.deepEqual(values(path), ['a', 'b', 'd']);

  assert.equal(journal.reserve(), true);
  journal.reset();
  assert.equal(statSync(path).size, 0, 'a reset empties the file, zeros included');
  journal.append(insert('e'));
  assert.equal(journal.reserve(), true);
  await journal.close();
  closed = true;
  assert.equal(statSync(path).size, Buffer.byteLength(readFileSync(path, 'utf8')));
  assert.equal(readFileSync(path).includes(0), false, 'a closed journal keeps no zeros');
  assert.equal(journalBytesOnDisk(path), statSync(path).size);
  assert.equal(journalBytesOnDisk(`${path}.missing`), 0);
  assert.deepEqual(
    readJournal(path, 3).entries.map((entry) => [entry.seq, entry.operations[0]?.[1][0]]),
    [[4, 'e']],
  );
});
