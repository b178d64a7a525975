import { invalidParameter } from '../shared/errors.js';
import { isInRange, type NumberRange } from '../graphql/argument-range.js';

/**
 * The near filter: records within a radius of a point, by great-circle distance on the Earth's mean
 * radius (WGS 84 degrees in, kilometres or miles out). The database narrows the rows to a bounding
 * box on its (latitude, longitude) index; the exact distance is worked out here, where it is also
 * the answer's `distance_km` and the order of sort=distance.
 */

export type DistanceUnit = 'KM' | 'MI';

const kilometresPer: Record<DistanceUnit, number> = { KM: 1, MI: 1.609344 };

/** The IUGG mean radius of the Earth. */
const earthRadiusKm = 6371.0088;
const kmPerDegreeOfLatitude = (earthRadiusKm * Math.PI) / 180;

/** The largest radius: a region, not a continent, so a search reads a bounded share of the directory. */
export const maxRadiusKm = 500;

export const latitudeRange: NumberRange = { minimum: -90, maximum: 90 };
export const longitudeRange: NumberRange = { minimum: -180, maximum: 180 };
/** In kilometres, the default unit. */
export const radiusRange: NumberRange = { minimum: 0, exclusiveMinimum: true, maximum: maxRadiusKm };

export interface NearArgs {
  lat?: number | null;
  lng?: number | null;
  radius?: number | null;
  radiusUnit?: DistanceUnit | null;
}

export interface Near {
  latitude: number;
  longitude: number;
  radiusKm: number;
}

/**
 * The near filter the arguments ask for (undefined without any of them); 400 naming the argument
 * when lat, lng and radius are not given together or are out of range. The radius has no default:
 * a search near a point says how far it reaches.
 */
export function nearOf(args: NearArgs): Near | undefined {
  const { lat, lng, radius, radiusUnit } = args;
  if (lat == null && lng == null && radius == null) {
    if (radiusUnit != null) throw invalidParameter('radiusUnit', 'The radius unit needs lat, lng and radius: the search it measures.', 'needs_point');
    return undefined;
  }
  const together = 'lat, lng and radius go together: the point, in degrees, and how far from it to search.';
  if (lat == null) throw invalidParameter('lat', together, 'required');
  if (lng == null) throw invalidParameter('lng', together, 'required');
  if (radius == null) throw invalidParameter('radius', together, 'required');
  if (!isInRange(lat, latitudeRange)) throw invalidParameter('lat', `lat is in degrees, from ${latitudeRange.minimum} to ${latitudeRange.maximum}.`, 'out_of_range');
  if (!isInRange(lng, longitudeRange)) throw invalidParameter('lng', `lng is in degrees, from ${longitudeRange.minimum} to ${longitudeRange.maximum}.`, 'out_of_range');
  const unit = radiusUnit ?? 'KM';
  const perUnit = kilometresPer[unit];
  const largest = Math.floor((maxRadiusKm / perUnit) * 10) / 10;
  if (!isInRange(radius, { ...radiusRange, maximum: largest })) {
    throw invalidParameter('radius', `radius is more than 0 and at most ${largest} ${unit.toLowerCase()}.`, 'out_of_range');
  }
  return { latitude: lat, longitude: lng, radiusKm: radius * perUnit };
}

const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** The great-circle distance between two points, in kilometres (haversine: exact on the sphere, stable at short range). */
export function distanceKm(fromLatitude: number, fromLongitude: number, toLatitude: number, toLongitude: number): number {
  const halfChord =
    Math.sin(radians(toLatitude - fromLatitude) / 2) ** 2 +
    Math.cos(radians(fromLatitude)) * Math.cos(radians(toLatitude)) * Math.sin(radians(toLongitude - fromLongitude) / 2) ** 2;
  return 2 * earthRadiusKm * Math.asin(Math.min(1, Math.sqrt(halfChord)));
}

/** A distance as answered: kilometres, to 10 m. */
export const roundedKm = (km: number): number => Math.round(km * 100) / 100;

/** Latitude and longitude conditions, as Prisma's where takes them, that every point within the radius meets. */
export function boundingBox(near: Near): { latitude: { gte: number; lte: number }; longitude?: { gte: number; lte: number } } | { OR: object[] } {
  const latitudeDelta = near.radiusKm / kmPerDegreeOfLatitude;
  const south = near.latitude - latitudeDelta;
  const north = near.latitude + latitudeDelta;
  const latitude = { gte: Math.max(-90, south), lte: Math.min(90, north) };
  // The meridians tangent to the circle (Matuschek, "Finding Points Within a Distance of a
  // Latitude/Longitude Using Bounding Coordinates"); near a pole every longitude is within reach.
  const reach = Math.sin(near.radiusKm / earthRadiusKm) / Math.cos(radians(near.latitude));
  if (south <= -90 || north >= 90 || reach >= 1) return { latitude };
  const longitudeDelta = Math.asin(reach) * (180 / Math.PI);
  const west = near.longitude - longitudeDelta;
  const east = near.longitude + longitudeDelta;
  if (west >= -180 && east <= 180) return { latitude, longitude: { gte: west, lte: east } };
  // Across the antimeridian: two ranges of longitude.
  return {
    OR: [
      { latitude, longitude: { gte: west < -180 ? west + 360 : west, lte: 180 } },
      { latitude, longitude: { gte: -180, lte: east > 180 ? east - 360 : east } },
    ],
  };
}
