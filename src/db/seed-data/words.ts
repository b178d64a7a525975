/** Word lists shared by every category; the seed combines them with each category's nouns. */

/** Attraction name shapes: "Nightmare Manor", "Spooky Hollow Pumpkin Patch", "Miller's Corn Maze", "Salem Ghost Walk". */
export const attractionNameTemplates = ['{adjective} {noun}', '{adjective} {place} {noun}', "{surname}'s {noun}", '{city} {noun}'];

export const adjectives = [
  'Nightmare',
  'Spooky',
  'Haunted',
  'Midnight',
  'Shadow',
  'Raven',
  'Crimson',
  'Wicked',
  'Ghostly',
  'Moonlit',
  'Cursed',
  'Howling',
  'Bone',
  'Lantern',
  'Witching',
  'Grim',
  'Eerie',
  'Twilight',
  'Blackwood',
  'Hallowed',
];

export const places = ['Hollow', 'Creek', 'Ridge', 'Valley', 'Grove', 'Pines', 'Woods', 'Bend', 'Hill', 'Marsh'];

/** The last sentence of a description: what a visitor would want to know before going. */
export const visitorNotes = [
  'Costumes are welcome.',
  'Free parking on site.',
  'Tickets cost less online than at the gate.',
  'Wheelchair accessible.',
  'Leashed dogs welcome.',
  'Closed in storms; check the website before you go.',
  'Food trucks on site.',
  'Cash and cards accepted.',
];

/** Photo sizes as cameras and phones produce them: landscape, portrait and square. */
export const imageSizes = [
  { width: 1600, height: 900 },
  { width: 1200, height: 800 },
  { width: 1024, height: 768 },
  { width: 800, height: 1200 },
  { width: 1080, height: 1080 },
] as const;
