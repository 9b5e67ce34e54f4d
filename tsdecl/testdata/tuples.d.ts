declare const tools: {
  /** Tuples with prefixItems (2020-12) and items arrays (draft-07). */
  draw_shapes(args: {
    /** [minX, minY, maxX, maxY] */
    bbox: [number, number, number, number];
    /** [x, y] or [x, y, z] @minItems 2 */
    point?: [number, number, number?];
    polyline?: [number, number][];
    /** A verb followed by numbers */
    command?: ["move" | "line" | "arc", ...number[]];
    header?: ["v1", string];
    any_list?: unknown[];
    nothing?: [];
  }): Promise<unknown>;
};
