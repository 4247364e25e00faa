// Common time zones as POSIX TZ strings (the device reads no zone database):
// the screen's settings menu steps through them, and the web page offers
// them beside its free-text field. Ordered by standard offset, west to east,
// so a tap on the menu row moves east and a hold moves west. Each rule is
// held to the IANA database (Node's Intl), for every place it names, by
// test/unit/system/local-time.test.ts.

export interface CommonZone {
  /** Short, for the menu's value column. */
  name: string;
  /** Longer, for the web page's list. */
  places: string;
  /** The POSIX TZ string. */
  tz: string;
}

export const COMMON_ZONES: readonly CommonZone[] = [
  { name: 'Honolulu', places: 'Honolulu', tz: 'HST10' },
  { name: 'Anchorage', places: 'Anchorage', tz: 'AKST9AKDT,M3.2.0,M11.1.0' },
  { name: 'Los Angeles', places: 'Los Angeles, Vancouver', tz: 'PST8PDT,M3.2.0,M11.1.0' },
  { name: 'Phoenix', places: 'Phoenix (no daylight saving)', tz: 'MST7' },
  { name: 'Denver', places: 'Denver, Calgary', tz: 'MST7MDT,M3.2.0,M11.1.0' },
  { name: 'Chicago', places: 'Chicago, Winnipeg', tz: 'CST6CDT,M3.2.0,M11.1.0' },
  { name: 'New York', places: 'New York, Toronto', tz: 'EST5EDT,M3.2.0,M11.1.0' },
  { name: 'São Paulo', places: 'São Paulo, Buenos Aires', tz: '<-03>3' },
  { name: 'UTC', places: 'UTC', tz: 'UTC0' },
  { name: 'London', places: 'London, Dublin, Lisbon', tz: 'GMT0BST,M3.5.0/1,M10.5.0' },
  { name: 'Berlin', places: 'Berlin, Paris, Rome, Madrid', tz: 'CET-1CEST,M3.5.0,M10.5.0/3' },
  { name: 'Athens', places: 'Athens, Helsinki, Kyiv', tz: 'EET-2EEST,M3.5.0/3,M10.5.0/4' },
  { name: 'Moscow', places: 'Moscow', tz: 'MSK-3' },
  { name: 'Dubai', places: 'Dubai', tz: '<+04>-4' },
  { name: 'India', places: 'India', tz: 'IST-5:30' },
  { name: 'Bangkok', places: 'Bangkok, Jakarta', tz: '<+07>-7' },
  { name: 'China', places: 'China, Singapore', tz: 'CST-8' },
  { name: 'Japan', places: 'Japan', tz: 'JST-9' },
  { name: 'Sydney', places: 'Sydney, Melbourne', tz: 'AEST-10AEDT,M10.1.0,M4.1.0/3' },
  { name: 'Auckland', places: 'New Zealand', tz: 'NZST-12NZDT,M9.5.0,M4.1.0/3' },
];
