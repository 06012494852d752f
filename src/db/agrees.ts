// Compile-time agreement between a value set the code declares (a zod enum) and the column the database constrains
// with a CHECK (its type in the generated row types, src/db/types.ts): a drift on either side fails the build.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/** Compiles only when `A` and `B` are the same union: `agrees<Role, UsersTable['role']>()`. Does nothing at run time. */
export const agrees = <A, B>(..._same: Same<A, B> extends true ? [] : [enum_and_column_differ: never]): void => {}
