import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCart, addItem, subtotal, total } from '../src/cart.js';

test('adding the same sku twice adds up the quantity', () => {
  const cart = addItem(addItem(createCart(), 'tea', 450), 'tea', 450, 2);
  assert.equal(cart.lines.length, 1);
  assert.equal(subtotal(cart), 1350);
});

test('orders of exactly 10000 cents get the discount', () => {
  const cart = addItem(createCart(), 'kettle', 10000);
  assert.equal(total(cart), 9000);
});
