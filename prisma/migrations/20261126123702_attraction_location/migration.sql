-- AlterTable
ALTER TABLE "attractions" ADD COLUMN     "latitude" DOUBLE PRECISION,
ADD COLUMN     "longitude" DOUBLE PRECISION;

-- CreateIndex
CREATE INDEX "attractions_latitude_longitude_idx" ON "attractions"("latitude", "longitude");

-- CreateIndex
CREATE INDEX "events_latitude_longitude_idx" ON "events"("latitude", "longitude");

-- Attractions already stored take the place of their events (the seeded events of an attraction
-- share its venue); operators move them from there.
UPDATE "attractions" AS a SET "latitude" = placed.latitude, "longitude" = placed.longitude
FROM (SELECT "attraction_id", avg("latitude") AS latitude, avg("longitude") AS longitude FROM "events" GROUP BY "attraction_id") AS placed
WHERE placed."attraction_id" = a."id";
