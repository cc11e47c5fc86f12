/** A cart is a list of { sku, price, quantity } lines; prices are in cents. */
export function createCart() {
  return { lines: [] };
}

export function addItem(cart, sku, price, quantity = 1) {
  const line = cart.lines.find((entry) => entry.sku === sku);
  if (line) line.quantity += quantity;
  else cart.lines.push({ sku, price, quantity });
  return cart;
}

export function subtotal(cart) {
  return cart.lines.reduce((sum, line) => sum + line.price * line.quantity, 0);
}

/** Orders of 10000 cents or more get 10% off. */
export function total(cart) {
  const amount = subtotal(cart);
  return amount > 10000 ? Math.round(amount * 0.9) : amount;
}
