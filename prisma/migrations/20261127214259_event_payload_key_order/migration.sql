-- AlterTable
ALTER TABLE "booking_events" ALTER COLUMN "payload" SET DATA TYPE JSON;

-- AlterTable
ALTER TABLE "webhook_deliveries" ALTER COLUMN "payload" SET DATA TYPE JSON;
