-- Idempotency keys now cover holds and waitlist entries too: created_id names what the first
-- request created, whichever create it was. Added beside booking_id, not renamed from it, so an
-- instance of the release before can run beside this one while a deploy rolls (it writes and reads
-- booking_id and created_booking only); a later migration drops booking_id.
ALTER TABLE "idempotency_keys" ADD COLUMN "created_id" TEXT;
UPDATE "idempotency_keys" SET "created_id" = "booking_id";
