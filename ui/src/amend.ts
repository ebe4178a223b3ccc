// Amending a resting order: `PATCH /nbx/v2/emm/orders/{orderId}` with `{price?, qty?}`, where
// `qty` is the new remaining quantity, answered 200 with the order (docs/ui.md "Prices, money and
// the ticket"). A server without the route answers 405 (the path exists for DELETE) or a 404 that
// is not ORDER_NOT_FOUND: the page then says amending is not available instead of an error.
import { ApiError, type OrderWire, traderCall } from './api.ts';

export interface AmendChange {
  price?: number;
  qty?: number;
}

/** The request an amend sends: only what changed from the order as shown. */
export function amendRequest(
  order: Pick<OrderWire, 'id' | 'price' | 'qty'>,
  next: { price: number; qty: number },
): { method: 'PATCH'; path: string; body: AmendChange } | undefined {
  const body: AmendChange = {};
  if (next.price !== order.price) body.price = next.price;
  if (next.qty !== order.qty) body.qty = next.qty;
  if (body.price === undefined && body.qty === undefined) return undefined;
  return { method: 'PATCH', path: `/nbx/v2/emm/orders/${encodeURIComponent(order.id)}`, body };
}

/** The server has no amend route (as opposed to: this order is gone). */
export function amendUnavailable(e: unknown): boolean {
  return e instanceof ApiError && (e.status === 405 || (e.status === 404 && e.code !== 'ORDER_NOT_FOUND'));
}

export async function amendOrder(
  order: Pick<OrderWire, 'id' | 'price' | 'qty'>,
  next: { price: number; qty: number },
): Promise<OrderWire | undefined> {
  const r = amendRequest(order, next);
  if (r === undefined) return undefined;
  return traderCall<OrderWire>(r.method, r.path, r.body);
}
