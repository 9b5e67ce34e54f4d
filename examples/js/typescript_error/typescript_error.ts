// Errors in TypeScript point at the line and column of this file, not of
// the JavaScript it was stripped to.
type Row = { id: number; owner?: { name: string } };

const rows: Row[] = [{ id: 1, owner: { name: "ada" } }, { id: 2 }];

function ownerName(row: Row): string {
  return row.owner!.name.toUpperCase();
}

text(rows.map(ownerName).join(", "));
