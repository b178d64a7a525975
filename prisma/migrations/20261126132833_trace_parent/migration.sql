-- AlterTable
ALTER TABLE "booking_events" ADD COLUMN     "trace_parent" TEXT;

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "trace_parent" TEXT;
