// GraphQL documents as the public clients write them: the official Python SDK builds literal
// arguments into the text (runpod/api/mutations/pods.py), the command-line tool runpodctl
// passes variables (api/pod.go). Shared by the pod tests.

/** The Python SDK's generate_pod_deployment_mutation output for a GPU pod, field for field. */
export function pythonDeployMutation(o: { name: string; imageName: string; gpuTypeId: string; cloudType?: string; gpuCount: number; volumeInGb?: number; containerDiskInGb?: number; ports?: string; env?: Record<string, string>; allowedCudaVersions?: string[] }): string {
  const fields = [`name: "${o.name}"`, `imageName: "${o.imageName}"`, `cloudType: ${o.cloudType ?? 'ALL'}`, 'startSsh: true', `gpuTypeId: "${o.gpuTypeId}"`, 'supportPublicIp: true', `gpuCount: ${o.gpuCount}`];
  if (o.volumeInGb !== undefined) fields.push(`volumeInGb: ${o.volumeInGb}`);
  if (o.allowedCudaVersions) fields.push(`allowedCudaVersions: [${o.allowedCudaVersions.map((v) => `"${v}"`).join(', ')}]`);
  fields.push('dataCenterId: null');
  if (o.containerDiskInGb !== undefined) fields.push(`containerDiskInGb: ${o.containerDiskInGb}`);
  if (o.ports !== undefined) fields.push(`ports: "${o.ports.replace(/ /g, '')}"`);
  if (o.env) fields.push(`env: [${Object.entries(o.env).map(([k, v]) => `{ key: "${k}", value: "${v}" }`).join(', ')}]`);
  return `
    mutation {
      podFindAndDeployOnDemand(
        input: {
          ${fields.join(', ')}
        }
      ) {
        id
        imageName
        env
        machineId
        machine {
          podHostId
        }
      }
    }
    `;
}

export const pythonStopMutation = (podId: string) => `
    mutation {
        podStop(input: { podId: "${podId}" }) {
            id
            desiredStatus
        }
    }
    `;

export const pythonResumeMutation = (podId: string, gpuCount: number) => `
    mutation {
        podResume(input: { podId: "${podId}", gpuCount: ${gpuCount} }) {
            id
            desiredStatus
            imageName
            env
            machineId
            machine {
                podHostId
            }
        }
    }
    `;

export const pythonTerminateMutation = (podId: string) => `
    mutation {
        podTerminate(input: { podId: "${podId}" })
    }
    `;

/** The Python SDK's pod query (runpod/api/queries/pods.py). */
export const pythonPodQuery = (podId: string) => `
    query pod {
        pod(input: {podId: "${podId}"}) {
            id
            containerDiskInGb
            costPerHr
            desiredStatus
            dockerArgs
            dockerId
            env
            gpuCount
            imageName
            lastStatusChange
            machineId
            memoryInGb
            name
            podType
            port
            ports
            uptimeSeconds
            vcpuCount
            volumeInGb
            volumeMountPath
            runtime {
                ports {
                    ip
                    isIpPublic
                    privatePort
                    publicPort
                    type
                }
            }
            machine {
                gpuDisplayName
                gpuAvailable
                maintenanceStart
                maintenanceEnd
                maintenanceNote
            }
        }
    }
    `;

/** The Python SDK's GPU query (runpod/api/queries/gpus.py). */
export const pythonGpuQuery = (gpuId: string, gpuCount = 1) => `
    query GpuTypes {
      gpuTypes(input: {id: "${gpuId}"}) {
        maxGpuCount
        id
        displayName
        manufacturer
        memoryInGb
        cudaCores
        secureCloud
        communityCloud
        securePrice
        communityPrice
        communitySpotPrice
        secureSpotPrice
        lowestPrice(input: {gpuCount: ${gpuCount}}) {
          minimumBidPrice
          uninterruptablePrice
        }
      }
    }
    `;

/** runpodctl CreatePod: variables, with every field of its CreatePodInput struct (zero values included). */
export const CTL_CREATE_POD = `
		mutation createPod($input: PodFindAndDeployOnDemandInput!) {
			podFindAndDeployOnDemand(input: $input) {
			  id
			  costPerHr
			  desiredStatus
			  lastStatusChange
			}
		}
		`;

export const ctlCreatePodInput = (o: { gpuTypeId: string; gpuCount: number; imageName: string; cloudType?: string }) => ({
  cloudType: o.cloudType ?? 'ALL',
  containerDiskInGb: 10,
  dockerArgs: '',
  env: [{ key: 'JUPYTER_PASSWORD', value: 'pw' }],
  gpuCount: o.gpuCount,
  gpuTypeId: o.gpuTypeId,
  imageName: o.imageName,
  minMemoryInGb: 0,
  minVcpuCount: 0,
  name: '',
  ports: '8888/http,22/tcp',
  templateId: '',
  volumeInGb: 20,
  volumeMountPath: '/workspace',
});

export const CTL_STOP_POD = `
		mutation stopPod($podId: String!) {
		  podStop(input: {podId:  $podId}) {
			id
			desiredStatus
			lastStatusChange
		  }
		}
		`;

export const CTL_RESUME_POD = `
		mutation podResume($podId: String!) {
		  podResume(input: {podId: $podId}) {
			id
			costPerHr
			desiredStatus
			lastStatusChange
		  }
		}
		`;

export const CTL_BID_RESUME_POD = `
		mutation Mutation($podId: String!, $bidPerGpu: Float!) {
			podBidResume(input: {podId: $podId, bidPerGpu: $bidPerGpu}) {
			  id
			  costPerHr
			  desiredStatus
			  lastStatusChange
			}
		}
		`;

export const CTL_TERMINATE_POD = `
		mutation terminatePod($podId: String!) {
		  podTerminate(input: {podId:  $podId})
		}
		`;

export const CTL_GET_PODS = `
		query myPods {
			myself {
			  pods {
				id
				containerDiskInGb
				costPerHr
				desiredStatus
				dockerArgs
				dockerId
				env
				gpuCount
				imageName
				lastStatusChange
				machineId
				memoryInGb
				name
				podType
				port
				ports
				uptimeSeconds
				vcpuCount
				volumeInGb
				volumeMountPath
				machine {
				  gpuDisplayName
				}
			  }
			}
		  }
		`;

export const CTL_LOWEST_PRICE = `
		query LowestPrice($input: GpuLowestPriceInput!) {
			gpuTypes {
			  lowestPrice(input: $input) {
				gpuName
				gpuTypeId
				minimumBidPrice
				uninterruptablePrice
				minMemory
				minVcpu
			  }
			  memoryInGb
			}
		}
		`;

/** Every §2.6 pod field plus the WIRE-COMPAT extras. */
export const FULL_POD_FIELDS = `
  id name imageName env machineId machine { podHostId gpuDisplayName }
  desiredStatus lastStatusChange costPerHr gpuCount vcpuCount memoryInGb uptimeSeconds podType
  volumeInGb volumeMountPath containerDiskInGb ports
  runtime {
    uptimeInSeconds
    ports { ip isIpPublic privatePort publicPort type }
    gpus { id gpuUtilPercent memoryUtilPercent }
    container { cpuPercent memoryPercent }
  }
`;
