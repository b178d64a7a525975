-- The credential that joined a line, so a booking widget token's entries and the holds offered to
-- them count against the token's caps. Entries made before it have none.
ALTER TABLE "waitlist_entries" ADD COLUMN "created_by" TEXT;

CREATE INDEX "waitlist_entries_created_by_status_idx" ON "waitlist_entries"("created_by", "status");
