import { TZDate } from '@date-fns/tz';
import { Faker, en } from '@faker-js/faker';
import type { Prisma } from '../../generated/prisma/client.js';
import { idPrefixes, type IdKind } from '../../shared/ids.js';
import { categoryId, categoryProfile, categoryProfiles, type CategoryProfile, type CategorySlug } from './categories.js';
import { cities, type City } from './cities.js';
import { adjectives, attractionNameTemplates, imageSizes, places, visitorNotes } from './words.js';

/**
 * The demo directory as rows, made without touching a database. Everything that varies comes from
 * one faker seeded with a constant, and nothing reads the clock, so every run yields the same rows,
 * ids included. Events fall on local days from mid-September to mid-November of 2026 (already past,
 * which gives history) and of 2027 (so listings of upcoming events stay non-empty for a year);
 * services open through the 2027 season of their kind.
 */
const fakerSeed = 31_102_026;
const scheduleFakerSeed = 31_102_027;
const seasons = [2026, 2027];
/** Services are bookable in the 2027 season (the 2026 one is past). */
const scheduleSeason = 2027;
/** createdAt and updatedAt of every seeded row. */
export const seededAt = new Date('2026-09-01T12:00:00Z');

const attractionsPerCity = 7;
const eventsPerSeason = { min: 1, max: 4 };
const companionsPerEvent = { min: 0, max: 2 };
const imagesPerEvent = { min: 1, max: 4 };
const servicesPerAttraction = { min: 1, max: 3 };
const shareWithWebsite = 0.875;
/** How far a venue may lie from its city's center, in degrees: about 10 km. */
const venueSpread = 0.09;
/**
 * How far the venues past a city's own few (larger scales) may lie from its center: they stand in
 * for the towns of the metro area and the countryside beyond, thinning out with the distance.
 */
const metroRadiusKm = 150;
const kmPerDegreeOfLatitude = 111.2;
/** Past this many tries a name may repeat one in another city: very large scales run out of fresh ones. */
const freshNameAttempts = 25;
const hourMs = 3_600_000;

export interface DirectoryRows {
  categories: Prisma.CategoryCreateManyInput[];
  attractions: Prisma.AttractionCreateManyInput[];
  attractionCategories: { attractionId: string; categoryId: string }[];
  events: Prisma.EventCreateManyInput[];
  eventCategories: { eventId: string; categoryId: string }[];
  images: Prisma.ImageCreateManyInput[];
  services: Prisma.ServiceCreateManyInput[];
}

/** `scale` multiplies the number of attractions, and with them events, images and services. */
export function generateDirectory(scale: number): DirectoryRows {
  if (!(scale > 0 && Number.isFinite(scale))) throw new RangeError(`seed scale must be a positive number, got ${scale}`);
  const generator = new DirectoryGenerator();
  const perCity = attractionsPerCity * scale;
  cities.forEach((city, index) => {
    // Rounding the running total spreads a fractional share per city evenly over the cities.
    const count = Math.round((index + 1) * perCity) - Math.round(index * perCity);
    // A city's first attractions are those of scale 1 (in town); a national scale adds its metro area.
    for (let made = 0; made < count; made++) generator.addAttraction(city, made < attractionsPerCity ? 'town' : 'metro');
  });
  return generator.rows;
}

/** Where an attraction stands: within about 10 km of its city's center, or anywhere in its metro area. */
type Surroundings = 'town' | 'metro';

/** What the events of one attraction share: place, kind and ticket prices. */
interface Listing {
  id: string;
  name: string;
  city: City;
  profile: CategoryProfile;
  venue: string;
  address: string;
  latitude: number;
  longitude: number;
  website: string | null;
  /** Entry price in cents; 0 means free to enter. */
  entryCents: number;
  /** The union of its events' categories. */
  categories: Set<CategorySlug>;
}

interface CalendarDay {
  year: number;
  month: number;
  day: number;
  /** 0 = Sunday, as Date#getUTCDay counts. */
  weekday: number;
}

class DirectoryGenerator {
  readonly rows: DirectoryRows = {
    categories: categoryProfiles.map((profile) => ({ id: categoryId(profile.slug), slug: profile.slug, name: profile.name, updatedAt: seededAt })),
    attractions: [],
    attractionCategories: [],
    events: [],
    eventCategories: [],
    images: [],
    services: [],
  };
  private readonly faker = new Faker({ locale: [en] });
  private readonly scheduleFaker = new Faker({ locale: [en] });
  private readonly usedNames = new Set<string>();
  private readonly profileChoices = categoryProfiles.map((profile) => ({ weight: profile.weight, value: profile }));

  constructor() {
    this.faker.seed(fakerSeed);
    this.scheduleFaker.seed(scheduleFakerSeed);
  }

  addAttraction(city: City, surroundings: Surroundings): void {
    const { faker } = this;
    const profile = faker.helpers.weightedArrayElement(this.profileChoices);
    const surname = faker.person.lastName();
    const name = this.attractionName(profile, city, surname);
    const id = this.id('attraction');
    // Drawn in this order (venue, address, place), as before metro areas existed: scale 1 stays as it was.
    const venue = fill(faker.helpers.arrayElement(profile.venues), { surname, city: city.name });
    const address = `${faker.location.streetAddress()}, ${city.name}, ${city.region}`;
    const [latitude, longitude] = surroundings === 'town' ? [nearby(faker, city.latitude), nearby(faker, city.longitude)] : inMetroArea(faker, city);
    const listing: Listing = {
      id,
      name,
      city,
      profile,
      venue,
      address,
      latitude,
      longitude,
      website: faker.datatype.boolean(shareWithWebsite) ? `https://${slugify(name)}.example.com` : null,
      entryCents: faker.datatype.boolean(profile.price.freeShare) ? 0 : faker.number.int(profile.price) * 100 + faker.helpers.arrayElement([0, 0, 50, 99]),
      categories: new Set(),
    };
    this.rows.attractions.push({
      id: listing.id,
      name,
      description: this.description(listing, 2),
      city: city.name,
      cityKey: city.name.toLowerCase(),
      region: city.region,
      website: listing.website,
      latitude: listing.latitude,
      longitude: listing.longitude,
      createdAt: seededAt,
      updatedAt: seededAt,
    });
    for (const year of seasons) {
      for (const day of this.eventDays(profile, year)) this.addEvent(listing, day);
    }
    for (const slug of listing.categories) this.rows.attractionCategories.push({ attractionId: listing.id, categoryId: categoryId(slug) });
    this.addServices(listing);
  }

  private attractionName(profile: CategoryProfile, city: City, surname: string): string {
    const { helpers } = this.faker;
    for (let attempt = 1; ; attempt++) {
      const name = fill(helpers.arrayElement(attractionNameTemplates), {
        adjective: helpers.arrayElement(adjectives),
        place: helpers.arrayElement(places),
        noun: helpers.arrayElement(profile.nouns),
        surname,
        city: city.name,
      });
      // "Lantern Lantern Tour" is never acceptable; a repeat of another city's name only when nothing fresh comes.
      if (repeatsAWord(name) || (this.usedNames.has(name) && attempt < freshNameAttempts)) continue;
      this.usedNames.add(name);
      return name;
    }
  }

  /** Distinct days of the category's season, weekends more likely, in date order. */
  private eventDays(profile: CategoryProfile, year: number): CalendarDay[] {
    const [fromMonth, fromDay] = profile.season.from;
    const [toMonth, toDay] = profile.season.to;
    const candidates: { weight: number; value: CalendarDay }[] = [];
    for (let time = Date.UTC(year, fromMonth - 1, fromDay); time <= Date.UTC(year, toMonth - 1, toDay); time += 24 * hourMs) {
      const date = new Date(time);
      const weekday = date.getUTCDay();
      const value = { year, month: date.getUTCMonth() + 1, day: date.getUTCDate(), weekday };
      candidates.push({ weight: weekday === 5 || weekday === 6 ? 3 : weekday === 0 ? 2 : 1, value });
    }
    const count = Math.min(this.faker.number.int(eventsPerSeason), candidates.length);
    const chosen = new Set<CalendarDay>();
    while (chosen.size < count) chosen.add(this.faker.helpers.weightedArrayElement(candidates));
    return [...chosen].sort((a, b) => a.month - b.month || a.day - b.day);
  }

  private addEvent(listing: Listing, day: CalendarDay): void {
    const { faker } = this;
    const { profile, city } = listing;
    const id = this.id('event');
    const hour = faker.helpers.arrayElement(profile.startHours);
    // Wall-clock time in the city's zone, so a 19:00 haunted house opens at 19:00 local in every city.
    const startsAt = new Date(new TZDate(day.year, day.month - 1, day.day, hour, 0, 0, city.timezone).getTime());
    const endsAt = new Date(startsAt.getTime() + faker.number.int(profile.lengthHours) * hourMs);
    const companions = faker.helpers.arrayElements(profile.companions, companionsPerEvent).map(categoryProfile);
    const kinds = [profile, ...companions];
    const halloween = day.month === 10 && day.day === 31;
    const occasion = halloween ? (hour < 17 ? 'Halloween Day' : 'Halloween Night') : faker.helpers.arrayElement(profile.occasions);
    const localDate = `${day.year}-${pad(day.month)}-${pad(day.day)}`;
    const { minCents, maxCents } = this.prices(listing, day);
    const companionNote = companions.length ? [`Also on the program: ${companions.map((companion) => companion.name.toLowerCase()).join(' and ')}.`] : [];
    this.rows.events.push({
      id,
      attractionId: listing.id,
      title: `${listing.name}: ${occasion}`,
      description: this.description(listing, 1, companionNote),
      city: city.name,
      cityKey: city.name.toLowerCase(),
      region: city.region,
      venue: listing.venue,
      address: listing.address,
      latitude: listing.latitude,
      longitude: listing.longitude,
      startsAt,
      endsAt,
      timezone: city.timezone,
      priceMin: dollars(minCents),
      priceMax: dollars(maxCents),
      currency: 'USD',
      url: listing.website ? `${listing.website}/events/${localDate}-${slugify(occasion)}` : `https://tickets.hallowgate.example/${id}`,
      createdAt: seededAt,
      updatedAt: seededAt,
    });
    for (const kind of kinds) {
      this.rows.eventCategories.push({ eventId: id, categoryId: categoryId(kind.slug) });
      listing.categories.add(kind.slug);
    }
    this.addImages(id, listing, kinds);
  }

  /** A weekend surcharge on paid entry, and on top a VIP or fast-pass tier (or paid extras at free events). */
  private prices(listing: Listing, day: CalendarDay): { minCents: number; maxCents: number } {
    const free = listing.entryCents === 0;
    const weekend = day.weekday === 5 || day.weekday === 6;
    const minCents = free ? 0 : listing.entryCents + (weekend ? 500 : 0);
    const upgrade = this.faker.helpers.arrayElement(free ? [0, 0, 500, 1000] : [0, 1000, 1500, 2500]);
    return { minCents, maxCents: minCents + upgrade };
  }

  private addImages(eventId: string, listing: Listing, kinds: CategoryProfile[]): void {
    const { faker } = this;
    const shots = kinds.flatMap((kind) => kind.pictures.map((picture) => ({ slug: kind.slug, picture })));
    faker.helpers.arrayElements(shots, imagesPerEvent).forEach(({ slug, picture }, position) => {
      const id = this.id('image');
      const { width, height } = faker.helpers.arrayElement(imageSizes);
      this.rows.images.push({
        id,
        eventId,
        url: `https://images.hallowgate.example/${slug}/${id.slice(idPrefixes.image.length + 1)}-${width}x${height}.jpg`,
        width,
        height,
        alt: `${picture.charAt(0).toUpperCase()}${picture.slice(1)} at ${listing.name}`,
        position,
      });
    });
  }

  /**
   * One to three of the kind's offers, each with the kind's weekly hours in the city's zone across
   * the 2027 season. Schedule details come from a faker of their own: the main one makes the same
   * draws as before services had schedules, so every other seeded row stays as it was.
   */
  private addServices(listing: Listing): void {
    const { faker, scheduleFaker } = this;
    const { service, season } = listing.profile;
    const offers = faker.helpers.arrayElements(service.offers, servicesPerAttraction).sort((a, b) => service.offers.indexOf(a) - service.offers.indexOf(b));
    for (const offer of offers) {
      this.rows.services.push({
        id: this.id('service'),
        name: `${offer.label} – ${listing.name}`,
        attractionId: listing.id,
        durationMinutes: faker.helpers.arrayElement(service.minutes),
        capacity: faker.number.int(service.capacity),
        timezone: listing.city.timezone,
        slotMinutes: scheduleFaker.helpers.arrayElement(offer.slotMinutes),
        seasonStart: new Date(Date.UTC(scheduleSeason, season.from[0] - 1, season.from[1])),
        seasonEnd: new Date(Date.UTC(scheduleSeason, season.to[0] - 1, season.to[1])),
        openingHours: offer.hours.flatMap((hours) => hours.days.map((weekday) => ({ weekday, opens: hours.opens, closes: hours.closes }))),
        createdAt: seededAt,
        updatedAt: seededAt,
      });
    }
  }

  /** `pitchCount` sentences about the attraction, any `details`, then something a visitor would want to know. */
  private description(listing: Listing, pitchCount: number, details: string[] = []): string {
    const values = { name: listing.name, city: listing.city.name };
    const pitches = this.faker.helpers.arrayElements(listing.profile.pitches, pitchCount).map((pitch) => fill(pitch, values));
    return [...pitches, ...details, this.faker.helpers.arrayElement(visitorNotes)].join(' ');
  }

  /** Ids come from the seeded faker, not from crypto, so they repeat from run to run. */
  private id(kind: IdKind): string {
    return `${idPrefixes[kind]}_${this.faker.string.alphanumeric(22)}`;
  }
}

function fill(template: string, values: Record<string, string>): string {
  return template.replaceAll(/\{(\w+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`seed template "${template}" names an unknown {${key}}`);
    return value;
  });
}

function repeatsAWord(name: string): boolean {
  const words = name.toLowerCase().split(/[\s-]+/);
  return new Set(words).size < words.length;
}

function slugify(text: string): string {
  return text
    .toLowerCase()
    .replaceAll("'", '')
    .replaceAll(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function nearby(faker: Faker, coordinate: number): number {
  return Number((coordinate + faker.number.float({ min: -venueSpread, max: venueSpread })).toFixed(5));
}

/** A point at a uniform bearing and distance from the city's center, so venues grow sparser away from it. */
function inMetroArea(faker: Faker, city: City): [latitude: number, longitude: number] {
  const bearing = faker.number.float({ min: 0, max: 2 * Math.PI });
  const degrees = faker.number.float({ min: 0, max: metroRadiusKm }) / kmPerDegreeOfLatitude;
  // A degree of longitude shrinks with the cosine of the latitude.
  const longitudeDegrees = degrees / Math.cos((city.latitude * Math.PI) / 180);
  return [Number((city.latitude + degrees * Math.cos(bearing)).toFixed(5)), Number((city.longitude + longitudeDegrees * Math.sin(bearing)).toFixed(5))];
}

/** Cents as an exact two-decimal amount for a Decimal(10, 2) column. */
function dollars(cents: number): string {
  return (cents / 100).toFixed(2);
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
