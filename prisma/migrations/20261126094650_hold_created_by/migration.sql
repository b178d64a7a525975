-- AlterTable
ALTER TABLE "holds" ADD COLUMN     "created_by" TEXT;

-- CreateIndex
CREATE INDEX "holds_created_by_status_expires_at_idx" ON "holds"("created_by", "status", "expires_at");
