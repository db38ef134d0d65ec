/** Who is making a request and on which version of a record, as the services see it. */
export interface RequestContext {
  /** Who makes the change (a username); absent when the request names no one. */
  readonly actor?: string;
  /**
   * The versions (ETags, quotes included) the change is based on; `*` stands for any current version. A write
   * happens only if the record's current ETag is among them. Absent: the change is unconditional.
   */
  readonly expectedVersions?: readonly string[];
}
