// Node types of a parsed filter. Positions are not kept here, so printing and re-parsing gives an equal tree.

export type CompareOp = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~' | '!~'

/** A literal: double-quoted string, number, `true`/`false`, or `null`. */
export type FilterValue = string | number | boolean | null

/** `field op value`; `field` is the dotted path as written (`board.name`). */
export interface Comparison {
  kind: 'compare'
  field: string
  op: CompareOp
  value: FilterValue
}
/** `a && b && c`; always two or more items. A parenthesised `&&` inside another `&&` stays a separate node. */
export interface And {
  kind: 'and'
  items: FilterNode[]
}
/** `a || b || c`; always two or more items. */
export interface Or {
  kind: 'or'
  items: FilterNode[]
}
/** `!cond` or `!(group)`. */
export interface Not {
  kind: 'not'
  item: FilterNode
}

export type FilterNode = Comparison | And | Or | Not

/** 1-based character positions of a comparison's parts, for error messages. */
export interface ComparisonPositions {
  field: number
  op: number
  value: number
}
