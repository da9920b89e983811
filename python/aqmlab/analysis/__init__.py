"""Control theory of TCP/AQM loops (issue 5).

* :mod:`.transfer`: factored transfer functions with a delay, evaluated exactly.
* :mod:`.plant`: the linearised Reno plant of Hollot et al. and the RED, P, PI, PIE and PI²
  controllers as transfer functions.
* :mod:`.margins`: gain/phase crossovers and margins by root-finding on the exact loop.
* :mod:`.design`: Hollot's Propositions 1 and 2, the bilinear map to digital (a, b).
* :mod:`.pie_maps`: the PIE HPSR 2013 §V maps (Figs. 13–16) and the check of its claims.
* :mod:`.fluid`: the Misra–Gong–Towsley fluid model with sampled AQMs, batched over
  configurations (compiled; a numpy integrator is its reference).
* :mod:`.response`: TCP response functions (square-root law, whole-round, PFTK, CUBIC).
* :mod:`.cli`: ``register(subparsers)`` for ``aqmlab design``, ``aqmlab margins`` and
  ``aqmlab response`` (:mod:`.response_cli`).

Nothing here imports the compiled ``aqmlab._core``, except the fluid model's integrator and
``aqmlab response --simulate``, which runs scenarios through :mod:`aqmlab.api`.
"""

from typing import TYPE_CHECKING

from .._lazy import exports

_MODULES = {
    "design": ["design_p", "design_pi", "design_red", "digital_to_pi", "pi_to_digital"],
    "fluid": ["bench_fluid", "fluid_run", "simulate", "to_dataframe"],
    "margins": ["Margins", "pade_margins", "stability_margins"],
    "pie_maps": ["check_paper_claims", "pie_margins"],
    "plant": ["ScalablePlant", "TcpPlant", "autotune_factor", "dualpi2_l_controller", "p_controller", "pi2_controller", "pi_controller", "pie_controller",
              "red_controller", "sampler_delay"],
    "response": ["cubic_rfc9438", "pftk", "response_table", "square_root_law", "whole_round"],
    "transfer": ["FactoredTF"],
}
# Imported on first use (numpy and scipy are not needed to register the command line).
__getattr__, __dir__ = exports(__name__, {name: module for module, names in _MODULES.items() for name in names})

if TYPE_CHECKING:
    from .design import design_p, design_pi, design_red, digital_to_pi, pi_to_digital
    from .fluid import bench_fluid, fluid_run, simulate, to_dataframe
    from .margins import Margins, pade_margins, stability_margins
    from .pie_maps import check_paper_claims, pie_margins
    from .plant import (
        ScalablePlant,
        TcpPlant,
        autotune_factor,
        dualpi2_l_controller,
        p_controller,
        pi2_controller,
        pi_controller,
        pie_controller,
        red_controller,
        sampler_delay,
    )
    from .response import cubic_rfc9438, pftk, response_table, square_root_law, whole_round
    from .transfer import FactoredTF

__all__ = [
    "FactoredTF",
    "Margins",
    "ScalablePlant",
    "TcpPlant",
    "autotune_factor",
    "dualpi2_l_controller",
    "bench_fluid",
    "check_paper_claims",
    "cubic_rfc9438",
    "design_p",
    "design_pi",
    "design_red",
    "digital_to_pi",
    "fluid_run",
    "p_controller",
    "pade_margins",
    "pftk",
    "pi2_controller",
    "pi_controller",
    "pi_to_digital",
    "pie_controller",
    "pie_margins",
    "red_controller",
    "response_table",
    "sampler_delay",
    "simulate",
    "square_root_law",
    "stability_margins",
    "to_dataframe",
    "whole_round",
]
