import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { parse } from "../http/errors.js";
import { claimsOf } from "../auth/tokens.js";
import { signIn } from "../auth/use-cases/sign-in.js";

const TokenForm = z.object({
  username: z.string({ message: "Field required" }).min(1, "Field required").max(200),
  password: z.string({ message: "Field required" }).min(1, "Field required").max(200),
});

/** POST /api/v1/token: form-encoded username and password -> bearer token (contract 1.2). */
export function authRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/token", async (request, reply) => {
    const form = parse(TokenForm, request.body);
    const user = await signIn(ctx.db, form.username, form.password);
    const accessToken = await ctx.tokens.sign(claimsOf(user));
    return reply.status(200).send({ access_token: accessToken, token_type: "bearer" });
  });
}
