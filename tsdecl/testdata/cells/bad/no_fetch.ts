// want: TS2304
const page = await fetch("https://example.com");
