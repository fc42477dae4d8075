import type { Role } from "../entities/user.js";

/**
 * Who may review: read agreement figures, read other annotators' responses side by side and write
 * final answers. Owners, and admins of the dataset's workspace (membership is the server's check);
 * annotators never.
 */
export function mayReview(role: Role): boolean {
  return role === "owner" || role === "admin";
}
