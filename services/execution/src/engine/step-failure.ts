import type { StepErrorKind } from '@platform/contracts';

/** A failed step attempt, with the kind that retry policies decide on. */
export class StepFailure extends Error {
  constructor(
    readonly kind: StepErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'StepFailure';
  }
}
