export interface Workspace {
  id: string;
  name: string;
}
