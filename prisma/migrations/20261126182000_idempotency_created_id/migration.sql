-- Idempotency keys now cover holds and waitlist entries too: the id of what the first request
-- created, whichever create it was. It was claimed with the booking's id before; now once made.
ALTER TABLE "idempotency_keys" RENAME COLUMN "booking_id" TO "created_id";
