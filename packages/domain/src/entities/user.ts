export type Role = "owner" | "admin" | "annotator";

export interface UserProps {
  id: string;
  username: string;
  firstName: string;
  lastName: string | null;
  role: Role;
  /**
   * The API key, known only right after it was created or rotated: the server stores a digest and
   * never returns a key again (null otherwise).
   */
  apiKey: string | null;
}

export class User {
  constructor(private readonly props: UserProps) {}

  get id(): string {
    return this.props.id;
  }
  get username(): string {
    return this.props.username;
  }
  get firstName(): string {
    return this.props.firstName;
  }
  get lastName(): string | null {
    return this.props.lastName;
  }
  get role(): Role {
    return this.props.role;
  }
  get apiKey(): string | null {
    return this.props.apiKey;
  }

  /** The same user with a freshly rotated key (shown once). */
  withApiKey(apiKey: string): User {
    return new User({ ...this.props, apiKey });
  }

  /** Admins and owners load full settings, create datasets and edit them (spec section 6). */
  get isAdminOrOwner(): boolean {
    return this.props.role === "admin" || this.props.role === "owner";
  }

  get fullName(): string {
    return [this.props.firstName, this.props.lastName].filter(Boolean).join(" ");
  }

  /** Up to two initials for the avatar. */
  get initials(): string {
    const source = this.fullName.trim() || this.props.username;
    return source
      .split(/\s+/)
      .map((w) => w[0] ?? "")
      .join("")
      .slice(0, 2)
      .toUpperCase();
  }
}
