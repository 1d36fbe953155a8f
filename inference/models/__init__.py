"""Models: which GGUF models Pagewise recommends for a GPU, and getting them onto the disk.

``catalog`` lists the recommended instruct models by GPU memory tier (``best_tier``,
``for_tier``), with a small one for the CPU (``recommended`` picks one for this computer);
``download`` fetches one from the Hugging Face hub into the models folder, with progress, cancel
and resume, only when the user asks (``installed_models`` lists what is there).

It uses the floor's top-level modules only.
"""
