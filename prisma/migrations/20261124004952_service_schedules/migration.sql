-- Slots count places (party sizes); every place taken so far was one booking of one person.
ALTER TABLE "booking_slots" RENAME COLUMN "confirmed_count" TO "places_taken";

-- Bookings made so far took one place and end one service duration after they start.
ALTER TABLE "bookings" ADD COLUMN     "end_time" TIMESTAMP(3),
ADD COLUMN     "party_size" INTEGER NOT NULL DEFAULT 1;

UPDATE "bookings" AS b
SET "end_time" = b."start_time" + make_interval(mins => s."duration_minutes")
FROM "services" AS s
WHERE s."id" = b."service_id";

ALTER TABLE "bookings" ALTER COLUMN "end_time" SET NOT NULL;

-- Schedules. A service made before them takes its attraction's time zone (that of its events), a
-- slot every duration and no opening hours: it offers no slot until an operator gives it hours,
-- since any hours invented here would sell times nobody offered. Its bookings stand.
ALTER TABLE "services" ADD COLUMN     "opening_hours" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "season_end" DATE,
ADD COLUMN     "season_start" DATE,
ADD COLUMN     "slot_minutes" INTEGER,
ADD COLUMN     "timezone" TEXT;

UPDATE "services" AS s
SET "timezone" = coalesce(
      (SELECT e."timezone" FROM "events" AS e WHERE e."attraction_id" = s."attraction_id"
       GROUP BY e."timezone" ORDER BY count(*) DESC, e."timezone" LIMIT 1),
      'UTC'),
    "slot_minutes" = s."duration_minutes",
    "season_start" = CURRENT_DATE,
    "season_end" = CURRENT_DATE + 365;

ALTER TABLE "services" ALTER COLUMN "season_end" SET NOT NULL,
ALTER COLUMN "season_start" SET NOT NULL,
ALTER COLUMN "slot_minutes" SET NOT NULL,
ALTER COLUMN "timezone" SET NOT NULL;

-- Idempotency records keep the first answer's booking row as JSON: it gains the two fields.
UPDATE "idempotency_keys" AS k
SET "created_booking" = k."created_booking" || jsonb_build_object(
    'endTime', to_char(((k."created_booking"->>'startTime')::timestamptz AT TIME ZONE 'UTC') + make_interval(mins => s."duration_minutes"),
                       'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'partySize', 1)
FROM "services" AS s
WHERE s."id" = k."created_booking"->>'serviceId';

-- CreateTable
CREATE TABLE "availability_versions" (
    "stripe" INTEGER NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "availability_versions_pkey" PRIMARY KEY ("stripe")
);

-- Services are part of the catalogue whose version kept answers read: an operator's change to a
-- service (its name, capacity or schedule) bumps it like any other directory write.
CREATE TRIGGER "services_bump_directory_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "services"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_directory_version"();
