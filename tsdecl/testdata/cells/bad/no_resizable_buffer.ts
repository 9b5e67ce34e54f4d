// want: TS2550
const buffer = new ArrayBuffer(8);
const moved = buffer.transfer(16);
