-- 014: a market's public trade prints (GET /nbx/v2/emm/markets/{id}/trades, docs/http.md "Trades")
-- read the taker side of each fill by market, newest first; washes moved nothing and are not trades.
CREATE INDEX IF NOT EXISTS fill_history_market_trades ON fill_history (market_id, currency, seq DESC, id DESC)
  WHERE is_taker AND NOT is_wash;
