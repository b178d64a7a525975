import { Prisma } from '../generated/prisma/client.js';

/** Whether Prisma refused a write for a unique constraint (P2002): the row's key is taken. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}
