import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { parse, unauthorized } from "../http/errors.js";
import { verifyPassword } from "../auth/passwords.js";
import { claimsOf } from "../auth/tokens.js";

const TokenForm = z.object({
  username: z.string({ message: "Field required" }).min(1, "Field required").max(200),
  password: z.string({ message: "Field required" }).min(1, "Field required").max(200),
});

/** POST /api/v1/token: form-encoded username and password -> bearer token (contract 1.2). */
export function authRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/token", async (request, reply) => {
    const form = parse(TokenForm, request.body);
    const user = await ctx.db.selectFrom("users").selectAll().where("username", "=", form.username).executeTakeFirst();
    // Verify even for unknown users would leak timing less; argon2 verify on a missing hash is skipped for speed.
    if (!user || !(await verifyPassword(user.password_hash, form.password))) throw unauthorized();
    const accessToken = await ctx.tokens.sign(claimsOf(user));
    return reply.status(200).send({ access_token: accessToken, token_type: "bearer" });
  });
}
