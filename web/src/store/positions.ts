// Where a card lands between its new neighbours: the midpoint of their positions (the server renumbers a list whose
// positions have run out of room and answers the position it gave).

/** The position between `before` and `after` (either absent at an end of the list; both absent: undefined, the end). */
export function between(before: number | undefined, after: number | undefined): number | undefined {
  if (before === undefined && after === undefined) return undefined
  if (before === undefined) return after! - 1
  if (after === undefined) return before + 1
  return (before + after) / 2
}

/** The position for a card put at `index` among `others` (the target list's cards without it, in order). */
export function positionAt(others: { position: number }[], index: number): number | undefined {
  return between(others[index - 1]?.position, others[index]?.position)
}
