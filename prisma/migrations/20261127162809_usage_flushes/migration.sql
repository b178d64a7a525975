-- CreateTable
CREATE TABLE "usage_flushes" (
    "id" TEXT NOT NULL,
    "flushed_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_flushes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "usage_flushes_flushed_at_idx" ON "usage_flushes"("flushed_at");
