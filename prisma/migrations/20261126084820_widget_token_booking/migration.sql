-- AlterTable
ALTER TABLE "widget_tokens" ADD COLUMN     "allow_booking" BOOLEAN NOT NULL DEFAULT false;
