import Lake
open Lake DSL

/-! Build configuration: one library, `Formal`, core Lean only (no Mathlib, no Batteries). -/

package «topos-bridge» where
  -- A typo must be an error, not a fresh implicit variable.
  leanOptions := #[⟨`autoImplicit, false⟩, ⟨`relaxedAutoImplicit, false⟩]

@[default_target]
lean_lib Formal where
