// The standard normal CDF through the complementary error function, using the Chebyshev fit of
// Numerical Recipes (Press et al., 2nd ed., §6.2, `erfcc`): fractional error below 1.2e-7
// everywhere, far finer than a price tick (1e-3), smooth and monotone — the fair-price tests rely
// on probabilities being monotone in the strike.

function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const ans =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? ans : 2 - ans;
}

/** Φ(x) = P(Z ≤ x) for a standard normal Z. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}
