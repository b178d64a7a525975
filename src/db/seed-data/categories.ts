/**
 * The eight directory categories and everything the seed needs to make believable listings of
 * each kind: names, venues, season, opening hours, prices, bookable sessions, descriptions and
 * what their pictures show. In templates, {name}, {city} and {surname} are filled in.
 */
export const categorySlugs = ['haunted-house', 'pumpkin-patch', 'hayride', 'corn-maze', 'ghost-tour', 'festival', 'escape-room', 'trick-or-treat'] as const;

export type CategorySlug = (typeof categorySlugs)[number];

/** A local calendar day of the season: [month, day]. */
export type MonthDay = readonly [month: number, day: number];

export interface CategoryProfile {
  slug: CategorySlug;
  name: string;
  /** How common attractions of this kind are, relative to the others. */
  weight: number;
  /** Last words of attraction names: "Manor" becomes "Nightmare Manor". */
  nouns: readonly string[];
  venues: readonly string[];
  /** First and last local day events of this kind run, both inclusive. */
  season: { from: MonthDay; to: MonthDay };
  /** Local hours events start at, and how long they run. */
  startHours: readonly number[];
  lengthHours: { min: number; max: number };
  /** Entry price in whole dollars, and the share of attractions that are free to enter. */
  price: { min: number; max: number; freeShare: number };
  /** Kinds an event of this kind plausibly also is: a pumpkin patch with a hayride. */
  companions: readonly CategorySlug[];
  /**
   * Bookable offers, named like "Timed entry – Nightmare Manor": an attraction sells one to three of
   * `offers`, each visit lasting one of `minutes`, with `capacity` places per start time.
   */
  service: { offers: readonly ServiceOffer[]; minutes: readonly number[]; capacity: { min: number; max: number } };
  /** What an event is called after the attraction's name: "Nightmare Manor: Lights-Out Night". */
  occasions: readonly string[];
  pitches: readonly string[];
  /** What photos of such an event show; image alt text is built from these. */
  pictures: readonly string[];
}

/** Local opening hours on some ISO weekdays (1 = Monday … 7 = Sunday); `closes` before `opens` is after midnight. */
export interface WeeklyHours {
  days: readonly number[];
  opens: string;
  closes: string;
}

/** One bookable offer: a start every one of `slotMinutes` (one is picked) within the weekly hours, through the season. */
export interface ServiceOffer {
  label: string;
  slotMinutes: readonly number[];
  hours: readonly WeeklyHours[];
}

const weekdays = [1, 2, 3, 4, 5] as const;
const weekend = [6, 7] as const;
const everyDay = [1, 2, 3, 4, 5, 6, 7] as const;

export const categoryProfiles: readonly CategoryProfile[] = [
  {
    slug: 'haunted-house',
    name: 'Haunted House',
    weight: 3,
    nouns: ['Manor', 'Asylum', 'Mansion', 'House of Horrors', 'Sanatorium', 'Funeral Parlor', 'Hotel'],
    venues: ['{surname} Warehouse', 'The Old {surname} Place', '{city} Fairgrounds Hall', '{surname} Mill'],
    season: { from: [9, 15], to: [11, 2] },
    startHours: [18, 19],
    lengthHours: { min: 4, max: 6 },
    price: { min: 22, max: 45, freeShare: 0 },
    companions: ['escape-room', 'festival', 'hayride'],
    service: {
      offers: [
        {
          label: 'Timed entry',
          slotMinutes: [15, 20, 30],
          hours: [
            { days: [4, 7], opens: '19:00', closes: '23:00' },
            { days: [5, 6], opens: '19:00', closes: '01:00' },
          ],
        },
        { label: 'Lights-out late entry', slotMinutes: [30], hours: [{ days: [5, 6], opens: '22:00', closes: '02:00' }] },
        { label: 'Fast pass', slotMinutes: [30, 60], hours: [{ days: [5, 6], opens: '19:00', closes: '00:00' }] },
        { label: 'Lights-on matinee', slotMinutes: [30, 60], hours: [{ days: weekend, opens: '13:00', closes: '17:00' }] },
      ],
      minutes: [30, 45, 60],
      capacity: { min: 20, max: 60 },
    },
    occasions: ['Opening Night', 'Lights-Out Night', 'Blackout Weekend', 'Zombie Night', 'Final Fright Night'],
    pitches: [
      '{name} fills every room with live actors, fog and animatronics, and few guests make it through without screaming.',
      'Thirty minutes of dark hallways, flickering lights and things that follow you: locals call {name} the scariest walk-through in {city}.',
      'Not recommended for children under 12; actors may touch guests who wear the glow necklace.',
    ],
    pictures: [
      'an actor in a blood-stained butcher costume lunging from a doorway',
      'a dim hallway lit by a single flickering bulb',
      'a crooked Victorian house under a full moon',
      'guests huddled together in a fog-filled room',
    ],
  },
  {
    slug: 'pumpkin-patch',
    name: 'Pumpkin Patch',
    weight: 3,
    nouns: ['Pumpkin Patch', 'Pumpkin Farm', 'Gourd Fields', 'Harvest Patch', 'Pumpkin Acres'],
    venues: ['{surname} Family Farm', '{surname} Orchard', '{surname} Acres'],
    season: { from: [9, 15], to: [11, 8] },
    startHours: [9, 10],
    lengthHours: { min: 7, max: 9 },
    price: { min: 5, max: 12, freeShare: 0.4 },
    companions: ['hayride', 'corn-maze', 'festival'],
    service: {
      offers: [
        {
          label: 'Pick-your-own slot',
          slotMinutes: [30, 60],
          hours: [
            { days: weekdays, opens: '10:00', closes: '18:00' },
            { days: weekend, opens: '09:00', closes: '18:00' },
          ],
        },
        { label: 'Weekend patch pass', slotMinutes: [60], hours: [{ days: weekend, opens: '09:00', closes: '17:00' }] },
        { label: 'Family morning', slotMinutes: [30], hours: [{ days: everyDay, opens: '09:00', closes: '12:00' }] },
        { label: 'Twilight picking', slotMinutes: [30], hours: [{ days: [5, 6, 7], opens: '15:00', closes: '19:00' }] },
      ],
      minutes: [60, 90, 120],
      capacity: { min: 30, max: 60 },
    },
    occasions: ['Opening Weekend', 'Family Day', 'Harvest Weekend', 'Pick-Your-Own Day', 'Pumpkin Carving Day'],
    pitches: [
      'Pick your own pumpkin straight off the vine at {name}, then warm up with cider donuts and hot apple cider.',
      'Acres of pumpkins, gourds and straw bales make {name} a favorite fall outing for {city} families.',
      'Wagons are provided for hauling the biggest pumpkin you can find.',
    ],
    pictures: [
      'rows of orange pumpkins glowing in the sunset',
      'a child lifting a pumpkin almost as big as herself',
      'a wheelbarrow piled with white and orange gourds',
      'straw bales and a scarecrow beside a red barn',
    ],
  },
  {
    slug: 'hayride',
    name: 'Hayride',
    weight: 2,
    nouns: ['Hayride', 'Wagon Ride', 'Tractor Trail', 'Hay Wagon'],
    venues: ['{surname} Farm', '{surname} Ranch', '{surname} Tree Farm'],
    season: { from: [9, 15], to: [11, 8] },
    startHours: [17, 18],
    lengthHours: { min: 3, max: 5 },
    price: { min: 10, max: 22, freeShare: 0 },
    companions: ['pumpkin-patch', 'corn-maze', 'haunted-house'],
    service: {
      offers: [
        { label: 'Wagon departure', slotMinutes: [20, 30], hours: [{ days: [5, 6, 7], opens: '17:00', closes: '22:00' }] },
        { label: 'Haunted hayride', slotMinutes: [15, 30], hours: [{ days: [5, 6], opens: '19:00', closes: '23:30' }] },
        { label: 'Sunset hayride', slotMinutes: [30], hours: [{ days: everyDay, opens: '16:00', closes: '19:00' }] },
      ],
      minutes: [30, 45],
      capacity: { min: 20, max: 40 },
    },
    occasions: ['Full Moon Ride', 'Haunted Trail Night', 'Family Twilight Ride', 'Bonfire Night'],
    pitches: [
      'A tractor-pulled wagon winds through dark woods at {name}, and something is waiting in the trees.',
      "Bundle up for a bumpy ride under the stars, with a bonfire and s'mores at the end of the trail.",
      'Early rides at {name} are gentle enough for little ones; the late wagons are for the brave.',
    ],
    pictures: [
      'a hay wagon full of riders on a moonlit farm trail',
      "a tractor pulling a wagon past glowing jack-o'-lanterns",
      'riders wrapped in blankets beside a bonfire',
      'a scarecrow silhouetted against an orange sky',
    ],
  },
  {
    slug: 'corn-maze',
    name: 'Corn Maze',
    weight: 2,
    nouns: ['Corn Maze', 'Maize Labyrinth', 'Cornfield of Terror', 'Stalk Maze'],
    venues: ['{surname} Farm', '{surname} Fields', '{surname} Homestead'],
    season: { from: [9, 15], to: [11, 8] },
    startHours: [10, 11, 12],
    lengthHours: { min: 6, max: 10 },
    price: { min: 8, max: 18, freeShare: 0 },
    companions: ['pumpkin-patch', 'hayride', 'festival'],
    service: {
      offers: [
        { label: 'Maze entry', slotMinutes: [30, 60], hours: [{ days: everyDay, opens: '10:00', closes: '18:00' }] },
        { label: 'Flashlight maze', slotMinutes: [30], hours: [{ days: [5, 6], opens: '18:30', closes: '23:00' }] },
        { label: 'Weekend maze pass', slotMinutes: [60], hours: [{ days: weekend, opens: '09:00', closes: '19:00' }] },
        { label: 'School group entry', slotMinutes: [60], hours: [{ days: weekdays, opens: '09:00', closes: '14:00' }] },
      ],
      minutes: [60, 90, 120],
      capacity: { min: 30, max: 60 },
    },
    occasions: ['Daylight Adventure', 'Flashlight Night', 'Haunted Night', 'Family Day'],
    pitches: [
      'Miles of paths cut through ten-foot corn at {name}; find every checkpoint to win a prize.',
      'After dark {name} turns into a flashlight hunt, with a few unwelcome guests between the stalks.',
      "This year's design at {name} can only be seen from the air.",
    ],
    pictures: [
      'tall corn stalks forming a narrow maze path',
      'an aerial view of a corn maze cut in the shape of a bat',
      'a family with flashlights in a dark cornfield',
      'a wooden checkpoint sign among dry corn stalks',
    ],
  },
  {
    slug: 'ghost-tour',
    name: 'Ghost Tour',
    weight: 2,
    nouns: ['Ghost Walk', 'Lantern Tour', 'Phantom Stroll', 'Cemetery Tour', 'Haunted History Tour'],
    venues: ['{city} Historic District', 'Old {city} Cemetery', '{city} Courthouse Square', '{surname} House Museum'],
    season: { from: [9, 15], to: [11, 15] },
    startHours: [19, 20],
    lengthHours: { min: 2, max: 3 },
    price: { min: 18, max: 35, freeShare: 0 },
    companions: ['festival', 'haunted-house'],
    service: {
      offers: [
        { label: 'Guided walk', slotMinutes: [30, 60], hours: [{ days: everyDay, opens: '19:00', closes: '23:00' }] },
        { label: 'Late-night walk', slotMinutes: [60], hours: [{ days: [5, 6], opens: '21:00', closes: '01:00' }] },
        { label: 'Cemetery lantern tour', slotMinutes: [60], hours: [{ days: [4, 5, 6, 7], opens: '18:00', closes: '22:00' }] },
      ],
      minutes: [60, 90, 120],
      capacity: { min: 10, max: 25 },
    },
    occasions: ['Candlelight Walk', 'Cemetery After Dark', 'True Crime Night', 'Paranormal Investigation'],
    pitches: [
      "On {name}, a costumed guide leads you by lantern light through {city}'s most haunted streets.",
      'Hear the true stories of murders, plagues and restless spirits the history books leave out.',
      '{name} stops at houses where guests still report cold spots and footsteps on empty stairs.',
    ],
    pictures: [
      'a guide holding a lantern in front of an old brick house',
      'an iron cemetery gate lit by candles',
      'a group of walkers at dusk on a cobblestone street',
      'weathered gravestones under bare trees',
    ],
  },
  {
    slug: 'festival',
    name: 'Festival',
    weight: 2,
    nouns: ['Harvest Festival', 'Fright Fest', 'Halloween Fair', 'Monster Bash', 'Spooktacular'],
    venues: ['{city} Fairgrounds', '{surname} Park', '{city} Civic Plaza', '{surname} Square'],
    season: { from: [9, 15], to: [11, 15] },
    startHours: [11, 12, 16],
    lengthHours: { min: 5, max: 9 },
    price: { min: 5, max: 20, freeShare: 0.35 },
    companions: ['trick-or-treat', 'pumpkin-patch', 'haunted-house'],
    service: {
      offers: [
        { label: 'Festival entry', slotMinutes: [60], hours: [{ days: weekend, opens: '11:00', closes: '22:00' }] },
        { label: 'Evening entry', slotMinutes: [60], hours: [{ days: [5, 6], opens: '16:00', closes: '23:00' }] },
        { label: 'Family day entry', slotMinutes: [60], hours: [{ days: weekend, opens: '10:00', closes: '16:00' }] },
      ],
      minutes: [60, 90, 120],
      capacity: { min: 40, max: 60 },
    },
    occasions: ['Opening Day', 'Costume Parade', 'Monster Mash Night', 'Block Party', 'Family Festival Day'],
    pitches: [
      'Live music, food trucks, a costume contest and a pumpkin-carving showdown fill {name}.',
      "{name} is {city}'s biggest Halloween party, with rides for kids and a haunted beer garden for grown-ups.",
      'Local artists sell handmade decorations, and the costume parade starts at dusk.',
    ],
    pictures: [
      'a festival stage bathed in purple and orange light',
      'children in costumes carving pumpkins',
      'paper bat garlands strung over food stalls',
      'a crowd in costumes marching in a night parade',
    ],
  },
  {
    slug: 'escape-room',
    name: 'Escape Room',
    weight: 1,
    nouns: ['Escape Room', 'Crypt Escape', 'Locked Tomb', 'Cursed Cabin', 'Seance Room'],
    venues: ['{surname} Escape Games', '{city} Puzzle House', 'The {surname} Building'],
    season: { from: [9, 15], to: [11, 15] },
    startHours: [17, 18],
    lengthHours: { min: 4, max: 6 },
    price: { min: 28, max: 40, freeShare: 0 },
    companions: ['haunted-house'],
    service: {
      offers: [
        {
          label: 'Escape session',
          slotMinutes: [75, 90],
          hours: [
            { days: [1, 2, 3, 4, 7], opens: '12:00', closes: '23:00' },
            { days: [5, 6], opens: '12:00', closes: '00:30' },
          ],
        },
        { label: 'Midnight session', slotMinutes: [90], hours: [{ days: [5, 6], opens: '22:00', closes: '01:30' }] },
        { label: 'Weekday evening session', slotMinutes: [75], hours: [{ days: [1, 2, 3, 4], opens: '16:00', closes: '22:00' }] },
        { label: 'Weekend session', slotMinutes: [75, 90], hours: [{ days: weekend, opens: '10:00', closes: '23:00' }] },
      ],
      minutes: [60],
      capacity: { min: 10, max: 12 },
    },
    occasions: ['Halloween Edition', 'Midnight Session', 'Candlelight Session', 'Cursed Weekend'],
    pitches: [
      'At {name}, your team has sixty minutes to break the curse before the candle burns out.',
      'Hidden passages, cryptic clues and a very unhappy spirit await at {name}.',
      'Groups of two to eight; no experience needed, nerves recommended.',
    ],
    pictures: [
      'a locked wooden door wrapped in chains',
      'a candlelit table with a spirit board and old letters',
      'a dusty bookshelf hiding a secret passage',
      'players searching a dim room with flashlights',
    ],
  },
  {
    slug: 'trick-or-treat',
    name: 'Trick or Treat',
    weight: 1,
    nouns: ['Trick-or-Treat Trail', 'Candy Crawl', 'Treat Street', 'Boo Walk', 'Trunk-or-Treat'],
    venues: ['{city} Main Street', '{surname} Park', '{city} Town Green', '{surname} Community Center'],
    season: { from: [10, 24], to: [10, 31] },
    startHours: [16, 17],
    lengthHours: { min: 2, max: 4 },
    price: { min: 2, max: 5, freeShare: 0.8 },
    companions: ['festival'],
    service: {
      offers: [
        { label: 'Trail entry', slotMinutes: [15, 30], hours: [{ days: everyDay, opens: '16:00', closes: '20:00' }] },
        { label: 'Little ones trail', slotMinutes: [15], hours: [{ days: everyDay, opens: '15:00', closes: '17:30' }] },
        { label: 'Costume parade entry', slotMinutes: [30], hours: [{ days: weekend, opens: '14:00', closes: '18:00' }] },
      ],
      minutes: [30, 45, 60],
      capacity: { min: 30, max: 60 },
    },
    occasions: ['Little Monsters Afternoon', 'Costume Crawl', 'Not-So-Scary Night', 'Treat Trail'],
    pitches: [
      'Shops and neighbors along {name} hand out candy to costumed kids of all ages.',
      'A safe, well-lit route through {city} with treat stations, music and a costume photo booth.',
      'Bring a bag and a flashlight; allergy-friendly treats are marked with teal pumpkins.',
    ],
    pictures: [
      'children in costumes collecting candy from a decorated doorway',
      'a teal pumpkin bucket full of treats',
      "a street at dusk lined with glowing jack-o'-lanterns",
      'a small witch and a dinosaur holding hands on a sidewalk',
    ],
  },
];

/** Stable, readable ids: other data and tests may name a category without looking it up. */
export function categoryId(slug: CategorySlug): string {
  return `cat_${slug.replaceAll('-', '_')}`;
}

export function categoryProfile(slug: CategorySlug): CategoryProfile {
  const profile = categoryProfiles.find((candidate) => candidate.slug === slug);
  if (!profile) throw new Error(`no category profile for ${slug}`);
  return profile;
}
