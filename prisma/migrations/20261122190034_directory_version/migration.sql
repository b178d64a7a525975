-- CreateTable
CREATE TABLE "directory_version" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "directory_version_pkey" PRIMARY KEY ("id")
);

-- Every write to a directory table bumps the version in the writing transaction, so readers see
-- the new version exactly when they see the new data. Statement triggers: one bump per statement.
INSERT INTO "directory_version" ("id", "version") VALUES (1, 0);

CREATE FUNCTION "bump_directory_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "directory_version" ("id", "version") VALUES (1, 1)
    ON CONFLICT ("id") DO UPDATE SET "version" = "directory_version"."version" + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER "events_bump_directory_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "events"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_directory_version"();
CREATE TRIGGER "attractions_bump_directory_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "attractions"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_directory_version"();
CREATE TRIGGER "categories_bump_directory_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "categories"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_directory_version"();
CREATE TRIGGER "images_bump_directory_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "images"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_directory_version"();
CREATE TRIGGER "category_events_bump_directory_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "_CategoryToEvent"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_directory_version"();
CREATE TRIGGER "attraction_categories_bump_directory_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "_AttractionToCategory"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_directory_version"();
