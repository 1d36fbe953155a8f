"""Planning: how a GGUF model is loaded into a GPU memory budget, and what that costs.

``gguf_info`` reads the model's hyperparameters and tensor table; ``gpu_budget`` the memory a
plan may use; ``kv_cache`` and ``memory_model`` price each placement part by part;
``policy.plan`` chooses GPU layers, KV type, flash attention and context, ``job_time`` the
micro-batch by the job's predicted time, ``batch_plan.choose_batch`` how many sequences
``generate_batch`` runs at once. The result is a ``plan.Plan``, the engines' input;
``calibration`` checks a plan against llama.cpp's own report.

It uses the floor's top-level modules (errors, ``llama_log``) only; the engines use it.
"""
