// Images pasted into the composer (issue 14): which ones the view takes, and the words when it does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attachRefusal, imageFromDataUrl, MAX_IMAGE_BYTES, MAX_IMAGES, sendRefusal } from '../../../media/image-format';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

test('issue 14: a pasted PNG becomes an image part; SVG, BMP and unreadable data are refused with what to do', () => {
  assert.deepEqual(imageFromDataUrl(`data:image/png;base64,${PIXEL}`), { mediaType: 'image/png', data: PIXEL });
  assert.match(JSON.stringify(imageFromDataUrl('data:image/svg+xml;base64,PHN2Zz4=')), /PNG, JPEG, GIF and WebP.*image\/svg\+xml/);
  assert.match(JSON.stringify(imageFromDataUrl(`data:image/bmp;base64,${PIXEL}`)), /this one is image\/bmp/);
  assert.match(JSON.stringify(imageFromDataUrl('data:image/png,raw')), /could not be read/);
});

test('issue 14: an image over 5 MB is refused naming its size; a fifth image is refused naming the limit', () => {
  const big = 'A'.repeat(Math.ceil(((MAX_IMAGE_BYTES + 1024) * 4) / 3));
  assert.match(JSON.stringify(imageFromDataUrl(`data:image/jpeg;base64,${big}`)), /5\.0 MB; an image may be at most 5 MB/);
  assert.equal(attachRefusal(MAX_IMAGES - 1), undefined);
  assert.match(attachRefusal(MAX_IMAGES) ?? '', /At most 4 images/);
});

test('issue 14: images handed back from the queue may pass the limit of one message; sending then says how many to remove', () => {
  assert.equal(sendRefusal(MAX_IMAGES), undefined);
  assert.equal(sendRefusal(0), undefined);
  assert.equal(sendRefusal(MAX_IMAGES + 2), '6 images are attached and at most 4 go with one message: remove 2 before sending.');
});
