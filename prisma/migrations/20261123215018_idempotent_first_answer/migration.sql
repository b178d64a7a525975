-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "created_booking" JSONB;

-- Keys recorded before: the booking as it is now is the nearest to the first answer still known.
UPDATE "idempotency_keys" AS k
SET "created_booking" = jsonb_build_object(
    'id', b."id",
    'accountId', b."account_id",
    'serviceId', b."service_id",
    'status', b."status",
    'startTime', to_char(b."start_time", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'customerName', b."customer_name",
    'customerEmail', b."customer_email",
    'createdAt', to_char(b."created_at", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updatedAt', to_char(b."updated_at", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'cancelledAt', to_char(b."cancelled_at", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
FROM "bookings" AS b
WHERE b."id" = k."booking_id";
