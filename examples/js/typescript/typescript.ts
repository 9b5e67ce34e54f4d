// TypeScript is stripped in-process; types are not checked.
interface Forecast {
  city: string;
  days: { day: string; high_c: number }[];
}
enum Unit {
  Celsius = "C",
  Fahrenheit = "F",
}
function warmest<T extends { high_c: number }>(days: T[]): T {
  return days.reduce((a, b) => (b.high_c > a.high_c ? b : a));
}
const f = (await tools.forecast({ city: "Porto" })) as Forecast;
const best = warmest(f.days);
return `${f.city}: warmest ${best.day} at ${best.high_c}${Unit.Celsius}`;
