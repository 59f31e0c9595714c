-- An answer's mark (0009) names the process that holds the answer: the liveness key its worker
-- registered with. A process that died took the answer with it, so its mark holds nothing: the
-- next attempt starts at once instead of waiting out the write's window (two minutes), which a
-- worker killed between its mark and its write left every waiting attempt to do. Marks made
-- before this migration name no holder and run out as before.
ALTER TABLE chunks ADD COLUMN answer_held_key bigint;
