import { invalidParameter } from '../shared/errors.js';

/**
 * The near filter: records within a radius of a point, by great-circle distance on the Earth's mean
 * radius (WGS 84 degrees in, kilometres or miles out). The database narrows the rows to a bounding
 * box on its (latitude, longitude) index; the exact distance is worked out here, where it is also
 * the answer's `distance` and the order of sort=distance.
 */

export type DistanceUnit = 'KM' | 'MI';

const kilometresPer: Record<DistanceUnit, number> = { KM: 1, MI: 1.609344 };

/** The IUGG mean radius of the Earth. */
const earthRadiusKm = 6371.0088;
const kmPerDegreeOfLatitude = (earthRadiusKm * Math.PI) / 180;

export const defaultRadius = 25;
/** The largest radius: a region, not a continent, so a search reads a bounded share of the directory. */
export const maxRadiusKm = 500;

export interface NearArgs {
  lat?: number | null;
  lng?: number | null;
  radius?: number | null;
  unit?: DistanceUnit | null;
}

export interface Near {
  latitude: number;
  longitude: number;
  radiusKm: number;
  unit: DistanceUnit;
}

/** The near filter the arguments ask for (undefined without lat and lng); 400 naming the argument when they are incomplete or out of range. */
export function nearOf(args: NearArgs): Near | undefined {
  const { lat, lng, radius, unit } = args;
  if (lat == null && lng == null) {
    if (radius != null) throw invalidParameter('radius', 'radius needs lat and lng: the point to measure it from.', 'needs_point');
    if (unit != null) throw invalidParameter('unit', 'unit needs lat and lng: the point to measure from.', 'needs_point');
    return undefined;
  }
  if (lat == null) throw invalidParameter('lat', 'lng needs lat: give both, in degrees.', 'required');
  if (lng == null) throw invalidParameter('lng', 'lat needs lng: give both, in degrees.', 'required');
  if (!(lat >= -90 && lat <= 90)) throw invalidParameter('lat', 'lat is in degrees, from -90 to 90.', 'out_of_range');
  if (!(lng >= -180 && lng <= 180)) throw invalidParameter('lng', 'lng is in degrees, from -180 to 180.', 'out_of_range');
  const chosenUnit = unit ?? 'KM';
  const perUnit = kilometresPer[chosenUnit];
  const largest = Math.floor((maxRadiusKm / perUnit) * 10) / 10;
  const radiusInUnit = radius ?? defaultRadius;
  if (!(radiusInUnit > 0 && radiusInUnit <= largest)) {
    throw invalidParameter('radius', `radius is more than 0 and at most ${largest} ${chosenUnit.toLowerCase()}.`, 'out_of_range');
  }
  return { latitude: lat, longitude: lng, radiusKm: radiusInUnit * perUnit, unit: chosenUnit };
}

const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** The great-circle distance between two points, in kilometres (haversine: exact on the sphere, stable at short range). */
export function distanceKm(fromLatitude: number, fromLongitude: number, toLatitude: number, toLongitude: number): number {
  const halfChord =
    Math.sin(radians(toLatitude - fromLatitude) / 2) ** 2 +
    Math.cos(radians(fromLatitude)) * Math.cos(radians(toLatitude)) * Math.sin(radians(toLongitude - fromLongitude) / 2) ** 2;
  return 2 * earthRadiusKm * Math.asin(Math.min(1, Math.sqrt(halfChord)));
}

/** A distance in kilometres in the unit asked for, to the metre. */
export const inUnit = (km: number, unit: DistanceUnit): number => Math.round((km / kilometresPer[unit]) * 1000) / 1000;

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
