/* gpu_ctx_probe.cu — when the CUDA driver has started and when each visible
 * device's context is ready, the contexts made at once (a thread each, as
 * scanmap's warm-up makes them, gpu_engine.cu gpu_context).  Times are
 * seconds from the start of main.
 *
 *   nvcc -O2 -arch=sm_90 -o gpu_ctx_probe benchmarks/gpu_ctx_probe.cu
 *   ./gpu_ctx_probe; CUDA_VISIBLE_DEVICES=0 ./gpu_ctx_probe
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define MAX_DEVICES 16

static double t0;

static double since_start(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9 - t0;
}

typedef struct {
	int device;
	double start, ready;
	cudaError_t err;
} job_t;

static void *make_context(void *arg)
{
	job_t *j = (job_t *)arg;

	j->start = since_start();
	j->err = cudaSetDevice(j->device);
	if (j->err == cudaSuccess)
		j->err = cudaFree(0);   /* the context is made here */
	j->ready = since_start();
	return NULL;
}

int main(void)
{
	job_t job[MAX_DEVICES];
	pthread_t th[MAX_DEVICES];
	double init;
	int n = 0;

	t0 = since_start();
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		fprintf(stderr, "gpu_ctx_probe: no CUDA device\n");
		return 1;
	}
	init = since_start();
	n = n < MAX_DEVICES ? n : MAX_DEVICES;
	for (int k = 0; k < n; k++) {
		job[k] = (job_t){ k, 0, 0, cudaSuccess };
		pthread_create(&th[k], NULL, make_context, &job[k]);
	}
	for (int k = 0; k < n; k++)
		pthread_join(th[k], NULL);
	printf("devices %d, driver started (cudaGetDeviceCount) at %.3f s\n", n, init);
	for (int k = 0; k < n; k++)
		printf("device %d: thread at %.3f, context ready at %.3f s%s%s\n", k, job[k].start,
		       job[k].ready, job[k].err == cudaSuccess ? "" : ", error: ",
		       job[k].err == cudaSuccess ? "" : cudaGetErrorString(job[k].err));
	return 0;
}
